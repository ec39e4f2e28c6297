// The gateway as an operator runs it: `psd2-gateway serve` in its own process, settings in the
// environment, its log lines and stderr collected; never left running after the test.
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { once } from 'node:events';
import { request } from 'node:http';
import { createServer } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

const ROOT = new URL('../../', import.meta.url).pathname;

/** The defaults every spawned gateway gets: sandbox, embedded database, quiet scheduler. */
const BASE_ENV = {
  PORT: '0',
  HOST: '127.0.0.1',
  LOG_LEVEL: 'info',
  SCHEDULER_INTERVAL_MS: '0',
  DATABASE_URL: '',
  MODE: 'sandbox',
};

export interface ServeProcess {
  readonly child: ChildProcessWithoutNullStreams;
  /** Log lines (JSON) written so far. */
  readonly lines: () => Record<string, unknown>[];
  readonly stdout: () => string;
  readonly stderr: () => string;
  /** Waits until `count` ready lines were logged (or the process exits, or the bound passes). */
  ready(count?: number, boundMs?: number): Promise<Record<string, unknown>[]>;
  /** The exit code once the process ended (SIGKILL after boundMs). */
  exited(boundMs?: number): Promise<number | null>;
  kill(): Promise<void>;
}

/** The TypeScript sources through tsx, unless `program` names another (node's flags and a script). */
export function spawnServe(
  env: Record<string, string>,
  args: readonly string[] = ['serve'],
  program: readonly string[] = ['--import', 'tsx', 'src/cli/index.ts'],
): ServeProcess {
  const child = spawn(process.execPath, [...program, ...args], {
    cwd: ROOT,
    env: { ...process.env, ...BASE_ENV, ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString('utf8');
  });
  child.stderr.on('data', (chunk: Buffer) => {
    err += chunk.toString('utf8');
  });
  const exit = once(child, 'exit').then(([code]) => code as number | null);
  const lines = () =>
    out
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  const readyLines = () => lines().filter((line) => String(line.msg).startsWith('psd2-gateway ready'));
  return {
    child,
    lines,
    stdout: () => out,
    stderr: () => err,
    async ready(count = 1, boundMs = 30_000) {
      const until = Date.now() + boundMs;
      while (readyLines().length < count && child.exitCode === null && Date.now() < until) await sleep(25);
      const found = readyLines();
      if (found.length < count) throw new Error(`not ready (exit ${child.exitCode}):\n${out}\n${err}`);
      return found;
    },
    async exited(boundMs = 30_000) {
      const timer = setTimeout(() => child.kill('SIGKILL'), boundMs);
      try {
        return await exit;
      } finally {
        clearTimeout(timer);
      }
    },
    async kill() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exit;
    },
  };
}

/** A port that was free a moment ago (listened on with port 0, then closed). */
export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  server.close();
  await once(server, 'close');
  return port;
}

/** One call on a connection of its own (no keep-alive): the cluster hands each to the next worker. */
export function fresh(
  url: string,
  method: string,
  headers: Record<string, string>,
  json?: unknown,
): Promise<{ status: number; body: unknown }> {
  const body = json === undefined ? undefined : JSON.stringify(json);
  return new Promise((resolve, reject) => {
    const call = request(
      url,
      {
        method,
        agent: false,
        headers: {
          ...headers,
          ...(body === undefined
            ? {}
            : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }),
        },
      },
      (response) => {
        let text = '';
        response.on('data', (chunk: Buffer) => {
          text += chunk.toString('utf8');
        });
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, body: text === '' ? '' : JSON.parse(text) }),
        );
      },
    );
    call.on('error', reject);
    call.end(body);
  });
}
