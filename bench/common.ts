// What the benchmarks share: a target (the gateway or a raw baseline), a sandbox gateway on PGlite or
// PostgreSQL, and the load generators, each a process of its own (autocannon in load-process.ts, the
// flows and executions in flow-process.ts) that fail loudly on any failed request.
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pino, { type Logger } from 'pino';
import { buildApp } from '../src/app.ts';
import { type Config, configWith } from '../src/config.ts';
import { loggerOptions } from '../src/http/logging.ts';
import { ensureSandboxApp, seedTestCustomers } from '../src/sandbox/seed.ts';
import { openStore } from '../src/store/database/open.ts';
import { memoryDirectory } from '../src/store/database/pglite.ts';
import type { Store } from '../src/store/database.ts';

export const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
/** Connections of the target figures (issue 18: 50); initiation's latency is also measured at 10. */
export const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
/** Alternating rounds (raw, gateway, raw, gateway, ...): each figure is the median of these. */
export const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 3));
/** Scenarios to run, comma-separated parts of their names (e.g. `initiation,executions`); all when empty. */
export const ONLY = (process.env.BENCH_ONLY ?? '').split(',').filter((part) => part !== '');
/** The benchmarks measure throughput: one app sends far more than its rate limits allow. */
export const NO_RATE_LIMITS = {
  windowMs: 60_000,
  apiPerApp: 0,
  apiPerAddress: 0,
  authorizationPerApp: 0,
  authorizationPerAddress: 0,
  psuLoginPerAddress: 0,
};

export interface Target {
  readonly url: string;
  readonly clientId: string;
  readonly redirectUri: string;
  close(): Promise<void>;
}

/**
 * A sandbox gateway on PGlite or PostgreSQL (a schema of its own, dropped at close). `shared`: on the
 * schema of another gateway of the run (not dropped), with standbys for its reads (bench/standbys.ts).
 * `pgliteFiles`: PGlite keeps its files in a directory of the RAM file system (removed at close), as
 * `npm start`'s sandbox does with its snapshot's copy, rather than in its own memory file system, whose
 * files grow by copying themselves whole into one twice the size (docs/decisions.md, "Issue 39: the
 * trail bench's PGlite on files"). `pgliteVacuum: false`: no vacuum turns of the store's own; the caller
 * runs them (bench/trail-process.ts).
 */
export async function gateway(
  databaseUrl: string | undefined,
  shared?: { readonly schemaName: string; readonly readUrl: string },
  {
    pgliteFiles = false,
    pgliteVacuum = true,
  }: { readonly pgliteFiles?: boolean; readonly pgliteVacuum?: boolean } = {},
): Promise<Target & { store: Store; schemaName: string | undefined }> {
  const schemaName =
    shared?.schemaName ??
    (databaseUrl === undefined ? undefined : `bench_${randomUUID().replaceAll('-', '').slice(0, 10)}`);
  const dataDir =
    databaseUrl === undefined && pgliteFiles
      ? mkdtempSync(join(memoryDirectory(), 'psd2-bench-'))
      : undefined;
  // Removed however the process ends: a failed round exits without closing.
  if (dataDir !== undefined) process.once('exit', () => rmSync(dataDir, { recursive: true, force: true }));
  const store = await openStore({
    databaseUrl,
    schemaName,
    poolSize: 20,
    readUrl: shared?.readUrl,
    dataDir,
    vacuumIntervalMs: pgliteVacuum ? undefined : 0,
  });
  // No scheduler: nothing is future-dated here, and its ticks would race the schema's drop at the end.
  const config = configWith({
    port: 0,
    sandboxRedirectUri: 'http://127.0.0.1/cb',
    schedulerIntervalMs: 0,
    rateLimits: NO_RATE_LIMITS,
  });
  await seedTestCustomers(store.db);
  const app = await ensureSandboxApp(store.db, config);
  const server = await buildApp({ config, store, logger: benchLogger(config) });
  const address = await server.listen({ port: 0, host: '127.0.0.1' });
  return {
    url: address,
    clientId: app.clientId,
    redirectUri: app.redirectUri,
    store,
    schemaName,
    async close() {
      await server.close();
      if (schemaName !== undefined && shared === undefined)
        await store.db.execute((await import('drizzle-orm')).sql.raw(`DROP SCHEMA ${schemaName} CASCADE`));
      await store.close();
    },
  };
}

/**
 * The gateway logs as it does when deployed: at LOG_LEVEL's default (info), one line per request, built
 * and written as pino writes to stdout (asynchronously), here to /dev/null: building the line and the
 * write are the gateway's cost, where the lines go next is a log collector's (and a run's log would
 * take gigabytes). Silenced, the gateway answered about 6% more initiations a second than it does as
 * deployed (docs/decisions.md, "The bench logs as a bank's gateway does").
 */
function benchLogger(config: Config): Logger {
  return pino(loggerOptions(config), pino.destination({ dest: '/dev/null', sync: false }));
}

const run = promisify(execFile);
const scratch = mkdtempSync(join(tmpdir(), 'psd2-bench-'));
process.on('exit', () => rmSync(scratch, { recursive: true, force: true }));
let files = 0;

/** Runs `script` (a bench file) in a node process of its own with `options` in a file; answers its JSON. */
export async function inProcess<T>(script: string, options: unknown): Promise<T> {
  files += 1;
  const file = join(scratch, `options-${files}.json`);
  writeFileSync(file, JSON.stringify(options));
  try {
    const { stdout } = await run(process.execPath, ['--import', 'tsx', script, file], {
      maxBuffer: 1 << 20,
      timeout: 600_000,
    });
    return JSON.parse(stdout) as T;
  } finally {
    rmSync(file, { force: true });
  }
}

/** A raw baseline server listening on a free loopback port, as a target. */
export async function listenRaw(server: Server): Promise<Target> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    clientId: 'raw',
    redirectUri: 'http://127.0.0.1/cb',
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
