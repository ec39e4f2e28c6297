// Starts the gateway: config, database (migrated), sandbox seed, app, listen; stops cleanly on signals.

import cluster from 'node:cluster';
import { createServer } from 'node:net';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { buildApp, systemMonitor } from './app.ts';
import { type Config, ConfigError, loadConfig, StartError } from './config.ts';
import { dateIn } from './domain/dates.ts';
import { createLogger } from './http/logging.ts';
import {
  answerPrimary,
  clusterExposition,
  type MetricsListener,
  metricsOf,
  serveMetrics,
  shareWithPrimary,
} from './http/metrics.ts';
import { ensureSandboxApp, seedTestCustomers } from './sandbox/seed.ts';
import { SNAPSHOT_DIR } from './sandbox/snapshot.ts';
import { policyFor } from './services/shared/policy.ts';
import type { SystemMonitor } from './services/shared/system-health.ts';
import { openStore } from './store/database/open.ts';
import type { Store } from './store/database.ts';
import { explainOpenFailure } from './store/open-failures.ts';
import { connectBankSystems, readTlsFiles } from './systems.ts';
import { superviseWorkers } from './workers.ts';

/** Said at every live start on the simulator: it is no e-ID, whatever the PSU pages look like. */
export const LIVE_SIMULATOR_WARNING =
  "the e-ID simulator is not the bank's e-ID: PSUs sign decoupled authorizations with their password alone (no strong customer authentication); for trying live without the bank's e-ID only";

/**
 * Opens (and migrates) the database the settings name; a failure that a setting explains becomes a
 * StartError that names it (store/open-failures.ts).
 */
export async function openConfiguredStore(
  config: Config,
  options: { readonly snapshot?: string; readonly logger?: Logger } = {},
): Promise<Store & { readonly migrated: readonly string[] }> {
  try {
    return await openStore({
      databaseUrl: config.databaseUrl,
      dataDir: config.dataDir,
      timeouts: config.databaseTimeouts,
      poolSize: config.databasePoolSize,
      readUrl: config.databaseReadUrl,
      readMaxLagMs: config.databaseReadMaxLagMs,
      ...options,
    });
  } catch (error) {
    const failure = explainOpenFailure(error, {
      databaseUrl: config.databaseUrl,
      dataDir: config.dataDir,
      connectMs: config.databaseTimeouts.connectMs,
    });
    throw failure === undefined ? error : new StartError(failure.setting, failure.text);
  }
}

/**
 * REDIS_URL's client, loaded only when it is set (most of a megabyte of code that a single process
 * never runs); a Redis that does not answer is a StartError naming REDIS_URL.
 */
async function openConfiguredRedis(url: string, logger: Logger): Promise<Redis> {
  const { openRedis, RedisOpenError } = await import('./store/redis.ts');
  return openRedis(url, {
    onDown: (error) =>
      logger.warn({ err: error }, 'Redis is away: rate limits are not counted until it is back'),
    onUp: () => logger.info('Redis is back: rate limits are counted again'),
  }).catch((error: unknown) => {
    throw error instanceof RedisOpenError
      ? new StartError(
          'REDIS_URL',
          `${error.message}; start Redis there, correct REDIS_URL, or unset it (each process then counts its own rate limits)`,
        )
      : error;
  });
}

/** A listening failure that a setting explains, as a StartError naming PORT or HOST. */
function listenFailure(error: unknown, config: Pick<Config, 'port' | 'host'>): unknown {
  const code = (error as { code?: unknown }).code;
  const where = `port ${config.port} on ${config.host}`;
  if (code === 'EADDRINUSE')
    return new StartError(
      'PORT',
      `${where} is taken by another process; stop that process or choose another PORT`,
    );
  if (code === 'EACCES')
    return new StartError(
      'PORT',
      `${where} needs privileges this process does not have; choose a PORT above 1023`,
    );
  if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND' || code === 'EAI_AGAIN')
    return new StartError(
      'HOST',
      `${config.host} is no address of this machine; correct HOST (0.0.0.0 listens on all)`,
    );
  return error;
}

/** The metrics' listener could not listen: a StartError naming METRICS_PORT or METRICS_HOST. */
function metricsListenFailure(error: unknown, where: { port: number; host: string }): unknown {
  const code = (error as { code?: unknown }).code;
  if (code === 'EADDRINUSE' || code === 'EACCES')
    return new StartError(
      'METRICS_PORT',
      `port ${where.port} on ${where.host} cannot be taken (${code === 'EACCES' ? 'it needs privileges' : 'another process has it'}); choose another METRICS_PORT`,
    );
  if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND' || code === 'EAI_AGAIN')
    return new StartError(
      'METRICS_HOST',
      `${where.host} is no address of this machine; correct METRICS_HOST`,
    );
  return error;
}

/**
 * Whether the port can be taken, asked before the database opens and the seed runs, so that a port in
 * use costs no work. The listen itself still reports a port taken in between the same way.
 */
export async function checkPort(config: Pick<Config, 'port' | 'host'>): Promise<void> {
  if (config.port === 0) return;
  await new Promise<void>((resolve, reject) => {
    const probe = createServer();
    probe.once('error', (error) => reject(listenFailure(error, config)));
    probe.listen({ port: config.port, host: config.host, exclusive: true }, () =>
      probe.close(() => resolve()),
    );
  });
}

/**
 * Several workers (WORKERS): the primary checks the port and does the once-per-database work before
 * any worker starts (migrations, the test customers, the sandbox app), so that workers never race each
 * other for it; then it forks and watches them (workers.ts).
 */
async function prepareForWorkers(config: Config, logger: Logger): Promise<void> {
  await checkPort(config);
  const store = await openConfiguredStore(config);
  try {
    if (config.seedTestData) await seedTestCustomers(store.db, dateIn(new Date(), config.timeZone));
    if (policyFor(config.mode).sandboxTools) {
      const scheme = config.tls === undefined ? 'http' : 'https';
      await ensureSandboxApp(store.db, config, localOrigin(`${scheme}://localhost:${config.port}`));
    }
  } finally {
    await store.close();
  }
  logger.info({ workers: config.workers }, `database prepared; starting ${config.workers} workers`);
}

export interface StartOptions {
  /** A worker of several (WORKERS): the primary checked the port and prepared the database. */
  readonly worker?: { readonly id: number };
}

export async function start(
  config: Config,
  logger: Logger = createLogger(config),
  options: StartOptions = {},
): Promise<{ close: () => Promise<void>; url: string; metricsUrl: string | undefined }> {
  const { worker } = options;
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
  // Workers share the primary's listening socket: the primary checked the port.
  if (worker === undefined) await checkPort(config);
  // The bank's own systems first: a setting they refuse stops the start before the database opens.
  const bank = await connectBankSystems(config, {
    onRatesRefreshError: (error) =>
      logger.warn({ err: error }, 'exchange rates could not be refreshed; the last ones stay in use'),
  });
  if (Object.keys(bank.connected).length > 0)
    phase('systems', `bank systems connected: ${describe(bank.connected)}`, { systems: bank.connected });
  const store = await openConfiguredStore(
    config,
    config.seedTestData ? { snapshot: SNAPSHOT_DIR, logger } : { logger },
  ).catch((error: unknown) => {
    bank.close();
    throw error;
  });
  // The rate limits' shared counters: a REDIS_URL that does not answer stops the start (as the database).
  const redis =
    config.redisUrl === undefined
      ? undefined
      : await openConfiguredRedis(config.redisUrl, logger).catch(async (error: unknown) => {
          bank.close();
          await store.close();
          throw error;
        });
  if (redis !== undefined) phase('redis', 'Redis connected: rate limits shared between processes');
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
  let metricsListener: MetricsListener | undefined;
  const close = () => {
    closing ??= (async () => {
      await metricsListener?.close();
      await app?.close();
      redis?.disconnect();
      bank.close();
      await store.close();
    })();
    return closing;
  };
  try {
    if (config.seedTestData && !store.fromSnapshot && worker === undefined) {
      await seedTestCustomers(store.db, dateIn(new Date(), config.timeZone));
      phase('seed', 'test customers seeded');
    }
    const monitor = systemMonitor({ store, ...(redis === undefined ? {} : { redis }) }, bank.probes);
    app = await buildApp({
      config,
      store,
      logger,
      systems: bank.systems,
      monitor,
      ...(tls === undefined ? {} : { tls }),
      ...(redis === undefined ? {} : { redis }),
    });
    phase('routes', 'routes ready');
    await logSystems(monitor, logger);
    const listening = localOrigin(
      await app.listen({ port: config.port, host: config.host }).catch((error: unknown) => {
        throw listenFailure(error, config);
      }),
    );
    const url = (config.publicUrl ?? listening) + config.basePath;
    phase('listen', `listening at ${url}`, { url, mode: config.mode });
    // A worker's metrics go to the primary, which serves them all on METRICS_PORT.
    if (config.metricsPort !== undefined && worker !== undefined) shareWithPrimary(metricsOf(app));
    else if (config.metricsPort !== undefined) {
      const where = { port: config.metricsPort, host: config.metricsHost };
      metricsListener = await serveMetrics(metricsOf(app), where).catch((error: unknown) => {
        throw metricsListenFailure(error, where);
      });
      phase('metrics', `metrics at ${metricsListener.url}/metrics`, { metricsUrl: metricsListener.url });
    }
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
      `psd2-gateway ready at ${url} in ${Math.round(performance.now())} ms${worker === undefined ? '' : ` (worker ${worker.id})`}`,
    );
    return { close, url, metricsUrl: metricsListener?.url };
  } catch (error) {
    await close();
    throw error;
  }
}

/**
 * One line per system the gateway depends on: whether it answered at start, where, in how long. One
 * that did not is a warning, not a stop: readiness says so (/readyz) until it answers.
 */
async function logSystems(monitor: SystemMonitor, logger: Logger): Promise<void> {
  for (const [system, state] of await monitor.check()) {
    const fields = {
      system,
      state: state.state,
      where: state.where,
      latencyMs: state.latencyMs,
      required: state.required,
    };
    if (state.state === 'up')
      logger.info(fields, `${system} answered in ${Math.round(state.latencyMs)} ms (${state.where})`);
    else
      logger.warn(
        { ...fields, problem: state.problem },
        `${system} did not answer (${state.where})${state.required ? ': not ready until it does' : ''}`,
      );
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
    // OpenID provider, the rate source): one line that names it. A database or port that a setting
    // names and that cannot be used: one line that names the setting and says what to do.
    config = loadConfig();
    if (config.workers > 1 && cluster.isPrimary) {
      const logger = createLogger(config);
      await prepareForWorkers(config, logger);
      if (config.metricsPort !== undefined) {
        const where = { port: config.metricsPort, host: config.metricsHost };
        const listener = await serveMetrics(clusterExposition(), where).catch((error: unknown) => {
          throw metricsListenFailure(error, where);
        });
        logger.info({ metricsUrl: listener.url }, `metrics of every worker at ${listener.url}/metrics`);
      }
      superviseWorkers(config, logger);
      return;
    }
    const worker = cluster.worker === undefined ? undefined : { id: cluster.worker.id };
    if (worker !== undefined && config.metricsPort !== undefined) answerPrimary();
    server = await start(config, createLogger(config), worker === undefined ? {} : { worker });
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`psd2-gateway: bad setting ${error.message}\n`);
      process.exit(2);
    }
    if (error instanceof StartError) {
      process.stderr.write(`psd2-gateway: cannot start: ${error.message}\n`);
      process.exit(1);
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
