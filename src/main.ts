// Starts the gateway: config, database (migrated), sandbox seed, app, listen; stops cleanly on signals.

import type { Logger } from 'pino';
import { buildApp } from './app.ts';
import { type Config, ConfigError, loadConfig } from './config.ts';
import { dateIn } from './domain/dates.ts';
import { createLogger } from './http/logging.ts';
import { ensureSandboxApp, seedTestCustomers } from './sandbox/seed.ts';
import { SNAPSHOT_DIR } from './sandbox/snapshot.ts';
import { policyFor } from './services/shared/policy.ts';
import { openStore } from './store/database.ts';
import { connectBankSystems, readTlsFiles } from './systems.ts';

/** Said at every live start on the simulator: it is no e-ID, whatever the PSU pages look like. */
export const LIVE_SIMULATOR_WARNING =
  "the e-ID simulator is not the bank's e-ID: PSUs sign decoupled authorizations with their password alone (no strong customer authentication); for trying live without the bank's e-ID only";

export async function start(
  config: Config,
  logger: Logger = createLogger(config),
): Promise<{ close: () => Promise<void>; url: string }> {
  // One line per phase with its time, from the process's start.
  let last = 0;
  const phase = (name: string, text: string, fields: Record<string, unknown> = {}) => {
    const now = performance.now();
    const ms = Math.round(now - last);
    last = now;
    logger.info({ phase: name, ms, ...fields }, `${text} in ${ms} ms`);
  };
  phase('modules', 'code loaded');
  if (policyFor(config.mode).warnOfSimulator && config.eidProvider.kind === 'simulator')
    logger.warn({ eidProvider: 'simulator' }, LIVE_SIMULATOR_WARNING);
  const tls = config.tls === undefined ? undefined : await readTlsFiles(config.tls);
  // The bank's own systems first: a setting they refuse stops the start before the database opens.
  const bank = await connectBankSystems(config, {
    onRatesRefreshError: (error) =>
      logger.warn({ err: error }, 'exchange rates could not be refreshed; the last ones stay in use'),
  });
  if (Object.keys(bank.connected).length > 0)
    phase('systems', `bank systems connected: ${describe(bank.connected)}`, { systems: bank.connected });
  const store = await openStore({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    timeouts: config.databaseTimeouts,
    ...(config.seedTestData ? { snapshot: SNAPSHOT_DIR } : {}),
  }).catch((error: unknown) => {
    bank.close();
    throw error;
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
      bank.close();
      await store.close();
    })();
    return closing;
  };
  try {
    if (config.seedTestData && !store.fromSnapshot) {
      await seedTestCustomers(store.db, dateIn(new Date(), config.timeZone));
      phase('seed', 'test customers seeded');
    }
    app = await buildApp({
      config,
      store,
      logger,
      systems: bank.systems,
      ...(tls === undefined ? {} : { tls }),
    });
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

function describe(connected: Readonly<Record<string, string>>): string {
  return Object.entries(connected)
    .map(([system, where]) => `${system} ${where}`)
    .join(', ');
}

/** The origin a browser on this machine reaches a listening address at: localhost, no default port. */
export function localOrigin(address: string): string {
  const url = new URL(address);
  url.hostname = 'localhost';
  return url.origin;
}

export async function main(): Promise<void> {
  let server: Awaited<ReturnType<typeof start>>;
  let config: Config;
  try {
    // A setting refused when read, or by the system it names at start (a certificate file, the
    // OpenID provider, the rate source): one line that names it.
    config = loadConfig();
    server = await start(config);
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`psd2-gateway: bad setting ${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
  let stopping = false;
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.on(signal, () => {
      if (stopping) return;
      stopping = true;
      // Stop taking connections, close idle ones at once, let requests in flight finish (answered
      // with Connection: close), close the database; exit within SHUTDOWN_TIMEOUT_MS whatever is left.
      setTimeout(() => {
        process.stderr.write(
          `psd2-gateway: requests still in flight after SHUTDOWN_TIMEOUT_MS (${config.shutdownTimeoutMs} ms): exiting\n`,
        );
        process.exit(1);
      }, config.shutdownTimeoutMs).unref();
      server.close().then(
        () => process.exit(0),
        () => process.exit(1),
      );
    });
  }
}
