// Starts the gateway: config, database (migrated), sandbox seed, app, listen; stops cleanly on signals.

import { readFile } from 'node:fs/promises';
import { buildApp } from './app.ts';
import { type Config, ConfigError, loadConfig, type TlsFiles } from './config.ts';
import { dateIn } from './domain/dates.ts';
import { createLogger } from './http/logging.ts';
import { ensureSandboxApp, seedTestCustomers } from './sandbox/seed.ts';
import { SNAPSHOT_DIR } from './sandbox/snapshot.ts';
import { policyFor } from './services/shared/policy.ts';
import { openStore } from './store/database.ts';

export async function start(config: Config): Promise<{ close: () => Promise<void>; url: string }> {
  const logger = createLogger(config);
  // One line per phase with its time, from the process's start.
  let last = 0;
  const phase = (name: string, text: string, fields: Record<string, unknown> = {}) => {
    const now = performance.now();
    const ms = Math.round(now - last);
    last = now;
    logger.info({ phase: name, ms, ...fields }, `${text} in ${ms} ms`);
  };
  phase('modules', 'code loaded');
  const tls = config.tls === undefined ? undefined : await readTlsFiles(config.tls);
  const store = await openStore({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    ...(config.seedTestData ? { snapshot: SNAPSHOT_DIR } : {}),
  });
  const database = store.kind === 'postgres' ? 'PostgreSQL' : `PGlite (${config.dataDir ?? 'in memory'})`;
  phase(
    'database',
    `${database} ${store.fromSnapshot ? 'opened from the sandbox snapshot' : 'opened and migrated'}`,
    {
      database,
      fromSnapshot: store.fromSnapshot,
    },
  );
  let closing: Promise<void> | undefined;
  let app: Awaited<ReturnType<typeof buildApp>> | undefined;
  const close = () => {
    closing ??= (async () => {
      await app?.close();
      await store.close();
    })();
    return closing;
  };
  try {
    if (config.seedTestData && !store.fromSnapshot) {
      await seedTestCustomers(store.db, dateIn(new Date(), config.timeZone));
      phase('seed', 'test customers seeded');
    }
    app = await buildApp({ config, store, logger, ...(tls === undefined ? {} : { tls }) });
    phase('routes', 'routes ready');
    const listening = localOrigin(await app.listen({ port: config.port, host: config.host }));
    const url = (config.publicUrl ?? listening) + config.basePath;
    phase('listen', `listening at ${url}`, { url, mode: config.mode });
    if (policyFor(config.mode).sandboxTools) {
      const sandboxApp = await ensureSandboxApp(store.db, config, listening);
      phase('sandbox app', 'sandbox app ready', {
        clientId: sandboxApp.clientId,
        redirectUri: sandboxApp.redirectUri,
      });
      logger.info(
        { clientId: sandboxApp.clientId, redirectUri: sandboxApp.redirectUri },
        `sandbox app: client_id ${sandboxApp.clientId}, redirect_uri ${sandboxApp.redirectUri}; sandbox page at ${url}/sandbox, docs at ${url}/docs`,
      );
    }
    const memory = process.memoryUsage();
    const mb = (bytes: number) => Math.round(bytes / 1_048_576);
    logger.info(
      {
        url,
        mode: config.mode,
        readyMs: Math.round(performance.now()),
        memoryMB: { resident: mb(memory.rss), heap: mb(memory.heapUsed), external: mb(memory.external) },
      },
      `psd2-gateway ready at ${url} in ${Math.round(performance.now())} ms`,
    );
    return { close, url };
  } catch (error) {
    await close();
    throw error;
  }
}

/** The origin a browser on this machine reaches a listening address at: localhost, no default port. */
export function localOrigin(address: string): string {
  const url = new URL(address);
  url.hostname = 'localhost';
  return url.origin;
}

async function readTlsFiles(
  files: TlsFiles,
): Promise<{ key: string; cert: string; ca?: string; crl?: string }> {
  const read = async (key: string, path: string) => {
    try {
      return await readFile(path, 'utf8');
    } catch {
      throw new ConfigError(key, `cannot read the file ${path}`);
    }
  };
  return {
    cert: await read('TLS_CERT', files.cert),
    key: await read('TLS_KEY', files.key),
    ...(files.clientCa === undefined ? {} : { ca: await read('TLS_CLIENT_CA', files.clientCa) }),
    ...(files.crl === undefined ? {} : { crl: await read('TLS_CRL', files.crl) }),
  };
}

export async function main(): Promise<void> {
  let config: Config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`psd2-gateway: bad setting ${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
  const server = await start(config);
  let stopping = false;
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.on(signal, () => {
      if (stopping) return;
      stopping = true;
      // Stop taking connections, let requests in flight finish, close the database.
      server.close().then(
        () => process.exit(0),
        () => process.exit(1),
      );
    });
  }
}
