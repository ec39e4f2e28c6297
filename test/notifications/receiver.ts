// A TPP's notification receiver for the tests: a node:http server on port 0 that records what it is
// sent, and answers as the test says (200, 500, never within the gateway's timeout, slowly).
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: Record<string, unknown>;
  /** The body's bytes as sent (what the signature's Content-Digest covers). */
  readonly raw: Buffer;
}

/** How the receiver answers a request: a status now, a status after ms, or never (until closed). */
export type Behaviour = { status: number; delayMs?: number } | 'hang';

export interface Receiver {
  readonly url: string;
  readonly received: Received[];
  /** The answers to give, in order; the last is repeated. */
  behave(...behaviours: Behaviour[]): void;
  /** Requests being answered now (the concurrency the gateway keeps). */
  readonly open: () => number;
  readonly mostOpen: () => number;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const received: Received[] = [];
  let plan: Behaviour[] = [{ status: 204 }];
  let open = 0;
  let mostOpen = 0;
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const raw = Buffer.concat(chunks);
      received.push({
        method: request.method ?? '',
        path: request.url ?? '',
        headers: request.headers,
        body: JSON.parse(raw.toString('utf8')) as Record<string, unknown>,
        raw,
      });
      const behaviour = plan.length > 1 ? plan.shift()! : plan[0]!;
      open += 1;
      mostOpen = Math.max(mostOpen, open);
      response.on('close', () => {
        open -= 1;
      });
      if (behaviour === 'hang') return;
      const answer = () => response.writeHead(behaviour.status).end();
      if (behaviour.delayMs === undefined) answer();
      else setTimeout(answer, behaviour.delayMs).unref();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/notify`,
    received,
    behave: (...behaviours) => {
      plan = behaviours;
    },
    open: () => open,
    mostOpen: () => mostOpen,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Waits until `check` holds, polling every 10 ms, at most `ms` (then fails with `what`). */
export async function eventually(
  what: string,
  check: () => boolean | Promise<boolean>,
  ms = 5_000,
): Promise<void> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`not within ${ms} ms: ${what}`);
}
