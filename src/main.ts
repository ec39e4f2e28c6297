// Starts the gateway: config, database (migrated), sandbox seed, app, listen; stops cleanly on signals.

import { readFile } from 'node:fs/promises';
import { buildApp } from './app.ts';
import { type Config, ConfigError, loadConfig, type TlsFiles } from './config.ts';
import { dateIn } from './domain/dates.ts';
import { createLogger } from './http/logging.ts';
import { ensureSandboxApp, seedTestCustomers } from './sandbox/seed.ts';
import { policyFor } from './services/shared/policy.ts';
import { openStore } from './store/database.ts';

export async function start(config: Config): Promise<{ close: () => Promise<void>; url: string }> {
  const logger = createLogger(config);
  const tls = config.tls === undefined ? undefined : await readTlsFiles(config.tls);
  const store = await openStore({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  const app = await buildApp({ config, store, logger, ...(tls === undefined ? {} : { tls }) });
  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= (async () => {
      await app.close();
      await store.close();
    })();
    return closing;
  };
  try {
    if (config.seedTestData) await seedTestCustomers(store.db, dateIn(new Date(), config.timeZone));
    const listening = localOrigin(await app.listen({ port: config.port, host: config.host }));
    const url = (config.publicUrl ?? listening) + config.basePath;
    const database = store.kind === 'postgres' ? 'PostgreSQL' : `PGlite (${config.dataDir ?? 'in memory'})`;
    logger.info({ url, mode: config.mode, database }, `psd2-gateway listening at ${url}`);
    if (policyFor(config.mode).sandboxTools) {
      const sandboxApp = await ensureSandboxApp(store.db, config, listening);
      logger.info(
        { clientId: sandboxApp.clientId, redirectUri: sandboxApp.redirectUri },
        `sandbox app: client_id ${sandboxApp.clientId}, redirect_uri ${sandboxApp.redirectUri}; test data at ${url}/sandbox/test-data`,
      );
    }
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
