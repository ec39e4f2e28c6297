// Complete flows and executions in a process of its own (the load generator never shares the measured
// process's CPU). Reads its options as JSON from the file argv[2] names; prints {rate, done, p99} as JSON.
//
// flow: `concurrency` loops for `seconds`, each flow the five steps (initiate, authorize (302), code
// exchange, execute, status) for the next item of the list (app, token, debtor), in turn.
// execute: the prepared payments of the list executed once each by `concurrency` loops.
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:http';

export interface FlowItem {
  readonly clientId: string;
  readonly redirectUri: string;
  readonly token: string;
  readonly path: string;
  readonly product: string;
  readonly body: unknown;
}

export interface ExecuteItem {
  readonly clientId: string;
  readonly paymentId: string;
  readonly psuToken: string;
  readonly product: string;
}

export type WorkerOptions =
  | {
      readonly mode: 'flow';
      readonly url: string;
      readonly seconds: number;
      readonly concurrency: number;
      readonly items: readonly FlowItem[];
    }
  | {
      readonly mode: 'execute';
      readonly url: string;
      readonly concurrency: number;
      readonly items: readonly ExecuteItem[];
    };

export interface WorkerResult {
  readonly rate: number;
  readonly done: number;
  readonly p99: number;
}

const options = JSON.parse(readFileSync(process.argv[2]!, 'utf8')) as WorkerOptions;
const latencies: number[] = [];
// node:http with keep-alive rather than fetch: about twice the requests per second of CPU, so that the
// load generator is not what limits the raw baseline.
const agent = new Agent({ keepAlive: true, maxSockets: options.concurrency });
const origin = new URL(options.url);

interface Answer {
  readonly status: number;
  readonly location: string | undefined;
  readonly body: string;
}

function call(method: string, path: string, headers: Record<string, string>, body?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const sent = request(
      {
        agent,
        host: origin.hostname,
        port: origin.port,
        method,
        path,
        headers: body === undefined ? headers : { ...headers, 'content-length': Buffer.byteLength(body) },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            location: response.headers.location,
            body: Buffer.concat(chunks).toString(),
          }),
        );
        response.on('error', reject);
      },
    );
    sent.on('error', reject);
    sent.end(body);
  });
}

const tppHeaders = (clientId: string, token: string, extra: Record<string, string> = {}) => ({
  accept: 'application/json',
  'X-Gateway-Client-Id': clientId,
  'PSU-IP-Address': '192.0.2.1',
  'TPP-Request-ID': randomUUID(),
  'TPP-Transaction-ID': randomUUID(),
  Authorization: `Bearer ${token}`,
  ...extra,
});

function expect(answer: Answer, status: number, step: string): Answer {
  if (answer.status !== status) throw new Error(`${step} ${answer.status} ${answer.body.slice(0, 300)}`);
  return answer;
}

async function flow(item: FlowItem): Promise<void> {
  const initiated = expect(
    await call(
      'POST',
      item.path,
      tppHeaders(item.clientId, item.token, { 'content-type': 'application/json' }),
      JSON.stringify(item.body),
    ),
    200,
    'initiate',
  );
  const { paymentId } = JSON.parse(initiated.body) as { paymentId: string };
  const scope = `PIS:${paymentId}`;
  const query = new URLSearchParams({
    response_type: 'code',
    scope,
    client_id: item.clientId,
    state: randomUUID(),
    redirect_uri: item.redirectUri,
  });
  const authorized = expect(await call('GET', `/oauth2/authorize/1.0?${query}`, {}), 302, 'authorize');
  const code = new URL(authorized.location!).searchParams.get('code');
  if (code === null) throw new Error(`authorize: no code in ${authorized.location}`);
  const form = new URLSearchParams({
    grant_type: 'authorization_code',
    scope,
    client_id: item.clientId,
    code,
    redirect_uri: item.redirectUri,
  }).toString();
  const exchanged = expect(
    await call('POST', '/oauth2/token/1.0', { 'content-type': 'application/x-www-form-urlencoded' }, form),
    200,
    'code exchange',
  );
  const psuToken = (JSON.parse(exchanged.body) as { access_token: string }).access_token;
  expect(
    await call('PUT', `/psd2/v1/payments/${item.product}/${paymentId}`, tppHeaders(item.clientId, psuToken)),
    200,
    'execute',
  );
  expect(
    await call(
      'GET',
      `/psd2/v1/payments/${item.product}/${paymentId}/status`,
      tppHeaders(item.clientId, item.token, { Country: 'SE' }),
    ),
    200,
    'status',
  );
}

async function execute(item: ExecuteItem): Promise<void> {
  const executed = expect(
    await call(
      'PUT',
      `/psd2/v1/payments/${item.product}/${item.paymentId}`,
      tppHeaders(item.clientId, item.psuToken),
    ),
    200,
    'execute',
  );
  if (!executed.body.includes('transactionStatus'))
    throw new Error(`execute: ${executed.body.slice(0, 300)}`);
}

let next = 0;
let done = 0;
const started = performance.now();
const timed = async (work: () => Promise<void>) => {
  const begin = performance.now();
  await work();
  latencies.push(performance.now() - begin);
  done += 1;
};
if (options.mode === 'flow') {
  const deadline = started + options.seconds * 1000;
  const { items } = options;
  await Promise.all(
    Array.from({ length: options.concurrency }, async () => {
      while (performance.now() < deadline) await timed(() => flow(items[next++ % items.length]!));
    }),
  );
} else {
  const { items } = options;
  await Promise.all(
    Array.from({ length: options.concurrency }, async () => {
      while (next < items.length) {
        const item = items[next++]!;
        await timed(() => execute(item));
      }
    }),
  );
}
const elapsed = performance.now() - started;
latencies.sort((a, b) => a - b);
const answer: WorkerResult = {
  rate: (done * 1000) / elapsed,
  done,
  p99: Math.round(latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * 0.99))] ?? 0),
};
agent.destroy();
process.stdout.write(`${JSON.stringify(answer)}\n`);
