// The gateway's metrics in Prometheus's text format (issue 17 item 5), with prom-client: one registry
// per app (never prom-client's global one: a process may build several apps, tests build many).
// Requests by route and status with their latency; what the use cases tell (services/shared/metrics.ts);
// the database pool; the sizes of the coalescer's batches; the event loop's lag. Served at GET /metrics
// (api/health/metrics-routes.ts): on the public listener in the sandbox, on METRICS_PORT (main.ts).
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { FastifyInstance } from 'fastify';
import { AggregatorRegistry, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { ServiceMetrics } from '../services/shared/metrics.ts';
import type { SystemMonitor } from '../services/shared/system-health.ts';
import type { AvailabilityRecorder } from './availability-recorder.ts';
import { apiErrorBody } from './errors.ts';

/** The route label of a request no route matched (the not-found answer, an error before routing). */
const UNMATCHED_ROUTE = 'unmatched';

/** Request latency buckets, in seconds: from a cached read to a booking that waits for the bank. */
const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** Batch size buckets: the coalescer joins at most 64 items (store/coalescer.ts, BATCH_LIMITS). */
const BATCH_BUCKETS = [1, 2, 4, 8, 16, 32, 64];
/** ISO 20022 reason codes are four letters or digits; anything else is counted as "other". */
const REASON_CODE = /^[A-Z0-9]{4}$/;

/** The database pool now (store/database.ts PoolStats). */
interface PoolStats {
  readonly inUse: number;
  readonly idle: number;
  readonly waiting: number;
}

export interface MetricsSources {
  /** The database pool; undefined where there is none (PGlite): no pool gauges then. */
  readonly poolStats?: (() => PoolStats) | undefined;
  /** Reads that standbys may serve, by the server that served them; undefined without DATABASE_READ_URL. */
  readonly readCounts?: (() => { readonly standby: number; readonly primary: number }) | undefined;
}

export interface GatewayMetrics {
  readonly registry: Registry;
  /** What ServiceContext.metrics is: the use cases' counts. */
  readonly services: ServiceMetrics;
  /** The coalescer's observer (store/coalescer.ts observeBatches). */
  observeBatch(statement: string, size: number): void;
  /** The exposition: Prometheus's text format and its media type. */
  exposition(): Promise<{ readonly contentType: string; readonly text: string }>;
  /** Stops the event loop's monitor. */
  stop(): void;
}

export function createMetrics(sources: MetricsSources = {}): GatewayMetrics {
  const registry = new Registry();
  const registers = [registry];

  const payments = new Counter({
    name: 'psd2_payments_total',
    help: 'Payments that entered a status (ACTC when initiated, then each move), by product and status',
    labelNames: ['product', 'status'] as const,
    registers,
  });
  const executions = new Counter({
    name: 'psd2_payment_executions_total',
    help: 'Payments the bank answered an execution or a due booking for: booked, scheduled (ACCP, for its date) or rejected',
    labelNames: ['result'] as const,
    registers,
  });
  const rejections = new Counter({
    name: 'psd2_payment_rejections_total',
    help: 'Payments the bank refused, by ISO 20022 reason code',
    labelNames: ['reason'] as const,
    registers,
  });
  const sessionsStarted = new Counter({
    name: 'psd2_decoupled_sessions_started_total',
    help: 'Decoupled (e-ID) authorization sessions started',
    registers,
  });
  const sessionsEnded = new Counter({
    name: 'psd2_decoupled_sessions_ended_total',
    help: 'Decoupled authorization sessions ended, by result',
    labelNames: ['result'] as const,
    registers,
  });
  const tokens = new Counter({
    name: 'psd2_tokens_issued_total',
    help: 'Access tokens issued, by grant',
    labelNames: ['grant'] as const,
    registers,
  });
  const notifications = new Counter({
    name: 'psd2_notifications_total',
    help: 'Status notification attempts to TPPs, by result: delivered, retried (to be sent again) or abandoned',
    labelNames: ['result'] as const,
    registers,
  });
  const batches = new Histogram({
    name: 'psd2_db_batch_size',
    help: 'Items joined in one statement by the coalescer, by statement',
    labelNames: ['statement'] as const,
    buckets: BATCH_BUCKETS,
    registers,
  });

  const { poolStats } = sources;
  if (poolStats !== undefined) {
    const poolGauge = (name: string, help: string, read: (stats: PoolStats) => number) =>
      new Gauge({
        name,
        help,
        registers,
        collect() {
          this.set(read(poolStats()));
        },
      });
    poolGauge(
      'psd2_db_pool_connections_in_use',
      'PostgreSQL connections running a statement',
      (s) => s.inUse,
    );
    poolGauge('psd2_db_pool_connections_idle', 'PostgreSQL connections open and idle', (s) => s.idle);
    poolGauge('psd2_db_pool_waiting', 'Statements waiting for a PostgreSQL connection', (s) => s.waiting);
  }

  const { readCounts } = sources;
  if (readCounts !== undefined)
    new Counter({
      name: 'psd2_db_standby_reads_total',
      help: 'Reads that a standby may serve (DATABASE_READ_URL), by the server that served them: a standby, or the primary while none was current',
      labelNames: ['server'] as const,
      registers,
      collect() {
        const counts = readCounts();
        this.reset();
        this.inc({ server: 'standby' }, counts.standby);
        this.inc({ server: 'primary' }, counts.primary);
      },
    });

  // The event loop's delay since the last scrape, sampled every 10 ms; stopped with the app.
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  // Several workers (WORKERS): the primary shows the average of their means and the largest of the rest.
  const lagGauge = (name: string, help: string, read: () => number, aggregator: 'average' | 'max' = 'max') =>
    new Gauge({
      name,
      help,
      registers,
      aggregator,
      collect() {
        // Before the first sample the histogram reads NaN (mean) or its largest value (min).
        this.set(delay.count === 0 ? 0 : read() / 1e9);
      },
    });
  lagGauge(
    'nodejs_eventloop_lag_mean_seconds',
    'Mean event loop delay since the last scrape',
    () => delay.mean,
    'average',
  );
  lagGauge(
    'nodejs_eventloop_lag_p99_seconds',
    '99th percentile of the event loop delay since the last scrape',
    () => delay.percentile(99),
  );
  // The last gauge collected resets the window.
  lagGauge('nodejs_eventloop_lag_max_seconds', 'Longest event loop delay since the last scrape', () => {
    const max = delay.max;
    delay.reset();
    return max;
  });

  return {
    registry,
    services: {
      paymentStatus: (product, status, count = 1) => payments.inc({ product, status }, count),
      paymentExecuted: (result) => executions.inc({ result }),
      paymentRejected: (reasonCode) =>
        rejections.inc({ reason: REASON_CODE.test(reasonCode) ? reasonCode : 'other' }),
      decoupledSessionStarted: () => sessionsStarted.inc(),
      decoupledSessionEnded: (result) => sessionsEnded.inc({ result }),
      tokenIssued: (grant) => tokens.inc({ grant }),
      notificationAttempt: (result) => notifications.inc({ result }),
    },
    observeBatch: (statement, size) => batches.observe({ statement }, size),
    exposition: async () => ({ contentType: registry.contentType, text: await registry.metrics() }),
    stop: () => delay.disable(),
  };
}

/** Call latency buckets of the systems, in seconds: a local database to a bank system at its timeout. */
const SYSTEM_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/**
 * The systems the gateway depends on, labelled by system (database, redis, coreBanking, eid, psuLogin,
 * rates): whether each answers now (1 up, 0 down, as last learnt), the time of each call or probe, and
 * the calls or probes that failed.
 */
export function observeSystems(metrics: GatewayMetrics, monitor: SystemMonitor): void {
  const registers = [metrics.registry];
  new Gauge({
    name: 'psd2_system_up',
    help: 'Whether a system the gateway depends on answered its last call or probe (1) or not (0), by system',
    labelNames: ['system'] as const,
    registers,
    aggregator: 'min',
    collect() {
      this.reset();
      for (const [system, state] of monitor.states()) this.set({ system }, state.state === 'up' ? 1 : 0);
    },
  });
  const latency = new Histogram({
    name: 'psd2_system_call_duration_seconds',
    help: 'Time of a call or probe of a system the gateway depends on, by system',
    labelNames: ['system'] as const,
    buckets: SYSTEM_BUCKETS,
    registers,
  });
  const errors = new Counter({
    name: 'psd2_system_errors_total',
    help: 'Calls or probes of a system the gateway depends on that failed (no answer, 5xx, or an answer the gateway could not use), by system',
    labelNames: ['system'] as const,
    registers,
  });
  monitor.listen({
    call(system, seconds, failed) {
      latency.observe({ system }, seconds);
      if (failed) errors.inc({ system });
    },
  });
}

/**
 * Every answer's latency, by method, route pattern (never the raw URL: ids would make a series each)
 * and status code.
 */
function registerRequestMetrics(
  app: FastifyInstance,
  metrics: GatewayMetrics,
  recorder: AvailabilityRecorder | undefined,
): void {
  const requests = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time to answer a request, by method, route pattern and status code',
    labelNames: ['method', 'route', 'status_code'] as const,
    buckets: LATENCY_BUCKETS,
    registers: [metrics.registry],
  });
  app.addHook('onResponse', (request, reply, done) => {
    const route = request.routeOptions.url ?? UNMATCHED_ROUTE;
    const ms = reply.elapsedTime;
    requests.observe({ method: request.method, route, status_code: String(reply.statusCode) }, ms / 1000);
    // The RTS Art. 32 statistics count the same answer with the same time (http/availability-recorder.ts).
    // The probe names its app in this header on every request, the token request's too.
    const appId = request.headers['x-gateway-client-id'];
    recorder?.answered(
      route,
      reply.statusCode,
      ms,
      request.headers['user-agent'],
      typeof appId === 'string' ? appId : undefined,
    );
    done();
  });
}

const served = new WeakMap<FastifyInstance, GatewayMetrics>();

/** The metrics of an app built by buildApp (main.ts serves them on METRICS_PORT). */
export function metricsOf(app: FastifyInstance): GatewayMetrics {
  const metrics = served.get(app);
  if (metrics === undefined) throw new Error('an app without metrics');
  return metrics;
}

/**
 * Records the app's metrics for metricsOf, and stops their monitor when the app closes; each answer is
 * also counted by the availability recorder, when there is one.
 */
export function attachMetrics(
  app: FastifyInstance,
  metrics: GatewayMetrics,
  recorder?: AvailabilityRecorder,
): void {
  served.set(app, metrics);
  registerRequestMetrics(app, metrics, recorder);
  app.addHook('onClose', async () => metrics.stop());
}

/**
 * A worker of several (WORKERS): its registry answers the primary, which serves the sum of all
 * workers' metrics on METRICS_PORT (clusterExposition), over the cluster's IPC channel.
 */
export function shareWithPrimary(metrics: GatewayMetrics): void {
  answerPrimary();
  AggregatorRegistry.setRegistries([metrics.registry]);
}

/**
 * A worker answers the primary's requests for its metrics from its start (constructing one adds the
 * listener), so that a scrape while it starts does not wait for it in vain; empty until shareWithPrimary.
 */
export function answerPrimary(): void {
  AggregatorRegistry.setRegistries([new Registry()]);
  new AggregatorRegistry();
}

/** The primary of several workers: every worker's metrics, summed (the lag gauges as they say). */
export function clusterExposition(): Pick<GatewayMetrics, 'exposition'> {
  const aggregator = new AggregatorRegistry();
  return {
    exposition: async () => ({
      contentType: aggregator.contentType,
      text: await aggregator.clusterMetrics(),
    }),
  };
}

export interface MetricsListener {
  /** The listener's origin, http://host:port. */
  readonly url: string;
  close(): Promise<void>;
}

/**
 * The metrics' own listener (METRICS_PORT on METRICS_HOST): GET /metrics, and 404 in the API's error
 * shape for anything else. Plain HTTP: it is meant for this machine or the operator's network, never the
 * TPPs' (bind it to 127.0.0.1 or an internal address).
 */
export async function serveMetrics(
  metrics: Pick<GatewayMetrics, 'exposition'>,
  where: { readonly port: number; readonly host: string },
): Promise<MetricsListener> {
  const server = createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0];
    if (request.method !== 'GET' || path !== '/metrics') {
      const body = apiErrorBody(404, [
        // As the app's not-found answer (http/errors.ts): the path is not echoed.
        { code: 'RESOURCE_UNKNOWN', text: `There is no endpoint for ${request.method} at this path` },
      ]);
      response.writeHead(404, { 'content-type': 'application/json; charset=utf-8' });
      response.end(JSON.stringify(body));
      return;
    }
    metrics.exposition().then(
      ({ contentType, text }) => {
        response.writeHead(200, { 'content-type': contentType, 'cache-control': 'no-store' });
        response.end(text);
      },
      () => {
        const body = apiErrorBody(500, [{ code: 'INTERNAL_ERROR', text: 'the metrics could not be read' }]);
        response.writeHead(500, { 'content-type': 'application/json; charset=utf-8' });
        response.end(JSON.stringify(body));
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ port: where.port, host: where.host }, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${host}:${address.port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
