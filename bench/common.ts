// What the benchmarks share: a target (the gateway or a raw baseline), a sandbox gateway on PGlite or
// PostgreSQL, and an autocannon run that fails loudly on any failed request.
import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import autocannon from 'autocannon';
import pino from 'pino';
import { buildApp } from '../src/app.ts';
import { configWith } from '../src/config.ts';
import { ensureSandboxApp, seedTestCustomers } from '../src/sandbox/seed.ts';
import { openStore, type Store } from '../src/store/database.ts';

export const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
export const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 16);

export interface Target {
  readonly url: string;
  readonly clientId: string;
  readonly redirectUri: string;
  close(): Promise<void>;
}

export async function gateway(databaseUrl: string | undefined): Promise<Target & { store: Store }> {
  const schemaName =
    databaseUrl === undefined ? undefined : `bench_${randomUUID().replaceAll('-', '').slice(0, 10)}`;
  const store = await openStore({ databaseUrl, schemaName, poolSize: 20 });
  // No scheduler: nothing is future-dated here, and its ticks would race the schema's drop at the end.
  const config = configWith({
    port: 0,
    logLevel: 'silent',
    sandboxRedirectUri: 'http://127.0.0.1/cb',
    schedulerIntervalMs: 0,
  });
  await seedTestCustomers(store.db);
  const app = await ensureSandboxApp(store.db, config);
  const server = await buildApp({ config, store, logger: pino({ level: 'silent' }) });
  const address = await server.listen({ port: 0, host: '127.0.0.1' });
  return {
    url: address,
    clientId: app.clientId,
    redirectUri: app.redirectUri,
    store,
    async close() {
      await server.close();
      if (schemaName !== undefined)
        await store.db.execute((await import('drizzle-orm')).sql.raw(`DROP SCHEMA ${schemaName} CASCADE`));
      await store.close();
    },
  };
}

export async function load(options: autocannon.Options): Promise<number> {
  const result = await autocannon({ connections: CONNECTIONS, duration: SECONDS, ...options });
  const failures = result.non2xx + result.errors + result.timeouts;
  if (failures > 0)
    throw new Error(`${options.title}: ${failures} failed requests of ${result.requests.total}`);
  return result.requests.average;
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
