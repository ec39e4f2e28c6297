// buildApp: a Fastify instance with every plugin and route; it never listens (tests use inject() or
// listen on port 0; main.ts listens).

import { randomUUID } from 'node:crypto';
import { setTimeout as wait } from 'node:timers/promises';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import type { Redis } from 'ioredis';
import { referencing, withCustomers } from './adapters/bank-references.ts';
import { type BankSystems, builtInSystems } from './adapters/built-in-systems.ts';
import { accountRoutes } from './api/accounts/account-routes.ts';
import { cardAccountRoutes } from './api/card-accounts/card-account-routes.ts';
import { consentRoutes } from './api/consents/consent-routes.ts';
import { shortTermConsentRoutes } from './api/consents/short-term-consent-routes.ts';
import { decoupledAuthorizationRoutes } from './api/decoupled/decoupled-routes.ts';
import { docsRoutes } from './api/docs/docs-routes.ts';
import { fundsConfirmationRoutes } from './api/funds/funds-routes.ts';
import { healthRoutes, READY_TIMEOUT_MS } from './api/health/health-routes.ts';
import { metricsRoutes } from './api/health/metrics-routes.ts';
import { jwksRoutes } from './api/notifications/jwks-routes.ts';
import { notificationRoutes } from './api/notifications/notification-routes.ts';
import { NOTIFICATION_WEBHOOKS } from './api/notifications/webhooks.ts';
import { authorizationRoutes } from './api/oauth/authorize-routes.ts';
import { tokenRoutes } from './api/oauth/token-routes.ts';
import { subscriptionRoutes } from './api/onboarding/subscription-routes.ts';
import { thirdPartyRoutes } from './api/onboarding/third-party-routes.ts';
import { paymentExecutionRoutes } from './api/payments/execution-routes.ts';
import { paymentInitiationRoutes } from './api/payments/initiation-routes.ts';
import { seV1Routes } from './api/payments/se-v1-routes.ts';
import { dashboardOidcRoutes } from './api/psu/dashboard-oidc-routes.ts';
import { dashboardRoutes } from './api/psu/dashboard-routes.ts';
import { oidcRoutes } from './api/psu/oidc-routes.ts';
import { psuRoutes } from './api/psu/psu-routes.ts';
import { clockRoutes } from './api/sandbox/clock-routes.ts';
import { sandboxRoutes } from './api/sandbox/sandbox-routes.ts';
import { registerOpenApi } from './api/shared/openapi.ts';
import { pipelines } from './api/shared/pipeline.ts';
import { registerRateLimits } from './api/shared/rate-limits.ts';
import { SHARED_SCHEMAS } from './api/shared/schemas.ts';
import { loadQwacReader } from './certificates/qwac.ts';
import type { Config } from './config.ts';
import { registerAnswerCheck } from './http/answer-check.ts';
import { availabilityRecorder } from './http/availability-recorder.ts';
import {
  answerClientError,
  answerFrameworkError,
  registerErrorHandling,
  ServiceClosing,
} from './http/errors.ts';
import { registerFormBody } from './http/form-body.ts';
import { registerJsonBody } from './http/json-body.ts';
import { lazyCompilers } from './http/lazy-compilers.ts';
import { createLogger, RequestLog } from './http/logging.ts';
import { attachMetrics, createMetrics, observeSystems } from './http/metrics.ts';
import { checkRevocations } from './http/mtls.ts';
import { registerNotFound } from './http/not-found.ts';
import { registerTextGuard } from './http/text-guard.ts';
import { registerTolerantBodies, setIgnoredFieldsHeader } from './http/tolerant-body.ts';
import { setAnswerHeaders } from './http/tpp-headers.ts';
import { scenarioOf, settlementOf } from './sandbox/scenarios.ts';
import { findSandboxApp, resetSandbox } from './sandbox/seed.ts';
import { listTestData } from './sandbox/test-data-listing.ts';
import { consentAuthorizables } from './services/account-information/authorizables.ts';
import { expireConsentsOfApp, expireDueConsents } from './services/account-information/consents.ts';
import { startDelivery } from './services/notifications/delivery.ts';
import { openNotificationSigner } from './services/notifications/signing.ts';
import { paymentAuthorizables } from './services/payments/authorizables.ts';
import { bookDuePayments, startScheduler } from './services/payments/due-payments.ts';
import { appClock } from './services/shared/app-clock.ts';
import { AuthorizableRegistry } from './services/shared/authorizables.ts';
import { newCaches } from './services/shared/caches.ts';
import type { Clock, ServiceContext, Sleep } from './services/shared/context.ts';
import type { ServiceMetrics } from './services/shared/metrics.ts';
import { policyFor } from './services/shared/policy.ts';
import {
  observedPort,
  SystemMonitor,
  type SystemName,
  type SystemProbe,
} from './services/shared/system-health.ts';
import { startSealer } from './store/audit/sealer.ts';
import { addMinutes } from './store/availability-repository.ts';
import { observeBatches } from './store/coalescer.ts';
import { isConnectionLost, isDatabaseUnavailable } from './store/database/unavailable.ts';
import type { Store } from './store/database.ts';
import { storeProbes } from './store/probes.ts';

export interface AppDependencies {
  readonly config: Config;
  readonly store: Store;
  readonly clock?: Clock;
  /** Waits so long (the login throttle's delay); by default a timer. */
  readonly sleep?: Sleep;
  /** The bank's systems (ports); each one not given is the built-in one (src/adapters/built-in-systems.ts). */
  readonly systems?: Partial<BankSystems> & {
    /** The bank's OpenID Connect provider for PSU logins (adapters/openid-psu-login.ts); none is built in. */
    readonly psuIdentityProvider?: ServiceContext['psuIdentityProvider'];
    /**
     * Who the bank's customers are and what they hold, as the bank's own system says (CORE_BANKING_URL);
     * the PSU directory's passwords (our login page) stay its own.
     */
    readonly customers?: Omit<ServiceContext['psuDirectory'], 'authenticate'>;
    /**
     * Booking and recording an execution in one transaction, beside a core banking system given that
     * books in the gateway's database (a test's wrapper of the built-in ledger). Not given: the built-in
     * ledger's, while the ledger is the core banking system.
     */
    readonly recordedBookings?: ServiceContext['recordedBookings'];
  };
  /**
   * Serve HTTPS and ask for the TPP's certificate (live mode). The handshake succeeds without one or
   * with a bad one, so that the API answers with its own codes (CERTIFICATE_MISSING, …).
   */
  readonly tls?: { readonly key: string; readonly cert: string; readonly ca?: string; readonly crl?: string };
  /** A pino logger; by default one at config.logLevel. */
  readonly logger?: FastifyBaseLogger;
  /** The rate limits' counters shared between processes (REDIS_URL, opened by start()); else in memory. */
  readonly redis?: Redis;
  /**
   * The state of the systems the gateway depends on (start() makes it with every system's probe); else
   * one that probes the database and Redis. The bank's systems given are observed through it.
   */
  readonly monitor?: SystemMonitor;
  /** Tests: every answer must be one its route documents, else it becomes a 500 naming the mismatch. */
  readonly checkAnswers?: boolean;
  /** Tests: told of every route as it is registered (to hold the OpenAPI document to them). */
  readonly onRoute?: (route: { readonly method: string | readonly string[]; readonly url: string }) => void;
}

/** The longest path segment the router reads (ids are at most 64 characters). */
const MAX_PARAM_LENGTH = 200;

export async function buildApp(dependencies: AppDependencies): Promise<FastifyInstance> {
  const { config } = dependencies;
  // This app's own registry (http/metrics.ts); the use cases count through context.metrics.
  const metrics = createMetrics({
    poolStats: dependencies.store.poolStats,
    readCounts: dependencies.store.readCounts,
  });
  const monitor = dependencies.monitor ?? systemMonitor(dependencies);
  observeSystems(metrics, monitor);
  const logger = dependencies.logger ?? createLogger(config);
  const context = serviceContext({ ...dependencies, logger }, metrics.services, monitor);
  const { tls } = dependencies;
  // Under TLS every connection's certificate is read (http/mtls.ts).
  if (tls !== undefined) await loadQwacReader();
  // Mutual TLS with the TPPs' issuers; without them (sandbox) plain HTTPS. The CRLs are checked by
  // http/mtls.ts, not given to OpenSSL.
  const https =
    tls === undefined
      ? {}
      : {
          https: {
            key: tls.key,
            cert: tls.cert,
            ...(tls.ca === undefined ? {} : { ca: tls.ca }),
            requestCert: tls.ca !== undefined,
            rejectUnauthorized: false,
            minVersion: 'TLSv1.2' as const,
          },
        };
  const app = Fastify({
    ...https,
    loggerInstance: logger,
    // One line per request instead of Fastify's two (http/logging.ts).
    logController: new RequestLog(),
    bodyLimit: config.bodyLimit,
    trustProxy: config.trustProxy,
    // Our own ids: an incoming X-Request-Id is not trusted as the correlation id.
    genReqId: () => randomUUID(),
    requestIdHeader: false,
    ajv: {
      customOptions: {
        removeAdditional: false,
        coerceTypes: false,
        allErrors: true,
        useDefaults: false,
        // Named examples of request bodies, for the OpenAPI document only.
        keywords: ['x-examples'],
      },
    },
    // Each route's schemas compiled on its first call, not all at start (http/lazy-compilers.ts).
    schemaController: { compilersFactory: lazyCompilers },
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    // While closing, a request that still arrives is answered in our shape (the hook below).
    return503OnClosing: false,
    // Before routing: a malformed percent-encoding, or a path segment beyond maxParamLength.
    clientErrorHandler: answerClientError,
    frameworkErrors: answerFrameworkError(MAX_PARAM_LENGTH),
  }) as unknown as FastifyInstance;
  if (tls?.crl !== undefined) await checkRevocations(app.server, tls.ca ?? '', tls.crl);
  const { onRoute } = dependencies;
  if (onRoute !== undefined) app.addHook('onRoute', (route) => onRoute(route));
  const { db, readDb } = dependencies.store;
  // The RTS Art. 32 statistics: answers counted per minute, added to the database now and then.
  const recorder =
    config.availabilityFlushMs === 0
      ? undefined
      : availabilityRecorder((minutes) => addMinutes(db, minutes), {
          flushMs: config.availabilityFlushMs,
          onError: (error) =>
            logger.warn({ err: error }, 'availability statistics not written; kept for the next flush'),
        });
  attachMetrics(app, metrics, recorder);
  if (recorder !== undefined) app.addHook('onClose', () => recorder.close());
  // The standbys' reads (readDb) are joined in batches of their own.
  const unobserve = [db, ...(readDb === db ? [] : [readDb])].map((handle) =>
    observeBatches(handle, metrics.observeBatch),
  );
  app.addHook('onClose', async () => {
    for (const stop of unobserve) stop();
  });
  app.decorateRequest('tpp', undefined);
  app.decorateRequest('grant', undefined);
  // Closing: requests in flight finish, answered with Connection: close; one that still arrives on a
  // busy keep-alive connection is a 503 in the API or OAuth shape. Node closes the connections that
  // are idle when the close begins; one that goes idle later (answered before the close, the rest of
  // its request's body read during it) would hold the close until its keep-alive timeout, past
  // SHUTDOWN_TIMEOUT_MS: idle connections are closed again every 100 ms until the server has closed.
  let closing = false;
  let closeIdle: NodeJS.Timeout | undefined;
  app.addHook('preClose', async () => {
    closing = true;
    closeIdle = setInterval(() => app.server.closeIdleConnections(), 100).unref();
  });
  app.addHook('onClose', async () => clearInterval(closeIdle));
  // The hooks every request passes are callback-style: an async hook costs each request a promise and
  // a turn of the microtask queue (issue 18).
  app.addHook('onRequest', (_request, _reply, done) => {
    done(closing ? new ServiceClosing() : undefined);
  });
  app.addHook('onSend', (request, reply, _payload, done) => {
    if (closing) reply.header('Connection', 'close');
    setAnswerHeaders(request, reply);
    setIgnoredFieldsHeader(request, reply);
    done();
  });
  registerErrorHandling(app, isDatabaseUnavailable);
  // Before any route: it learns the routes to answer a path none serves, before its body is read.
  registerNotFound(app, config.basePath);
  if (dependencies.checkAnswers === true) registerAnswerCheck(app, SHARED_SCHEMAS);
  registerTextGuard(app);
  registerTolerantBodies(app);
  // JSON for the API, forms for the token endpoint; nothing else (Fastify also parses text/plain).
  app.removeContentTypeParser('text/plain');
  registerJsonBody(app);
  registerFormBody(app);

  if (config.schedulerIntervalMs > 0) {
    const stopScheduler = startScheduler(context, config.schedulerIntervalMs, app.log, [
      { name: 'consents expired', run: () => expireDueConsents(context) },
    ]);
    app.addHook('onClose', stopScheduler);
  }
  // The audit trail's sealer (and its retention): every process runs one; one seals at a time.
  if (config.auditSealIntervalMs > 0) {
    const stopSealer = startSealer(context.db, {
      key: config.auditKey,
      intervalMs: config.auditSealIntervalMs,
      retentionDays: config.auditRetentionDays,
      onError: (error) => app.log.error({ err: error }, 'sealing the audit trail failed'),
    });
    app.addHook('onClose', stopSealer);
  }

  // Before any route and the OpenAPI document: the limits that routes name in their pipelines.
  const limits = await registerRateLimits(app, config, { redis: dependencies.redis });
  // Every route's steps, limits and retries, declared in its own file (api/shared/pipeline.ts).
  const pipeline = pipelines(limits, isConnectionLost);
  // Before any route: the OpenAPI document is generated from the routes as they are registered.
  await registerOpenApi(app, config, context.mtls, NOTIFICATION_WEBHOOKS);
  // Outside BASE_PATH; live not on this listener (main.ts serves them on METRICS_PORT).
  if (context.policy.metricsOnPublicListener) metricsRoutes(app, pipeline, metrics);
  // The key that signs status notifications: its files are read now (a bad one stops the start).
  const notificationSigner = await openNotificationSigner(config, context.db);
  // The status notifications' delivery (issue 41): every process runs one; each notification is sent
  // by one at a time, signed (RFC 9421) with the key the JWKS publishes.
  if (config.notificationPollMs > 0) {
    const stopDelivery = startDelivery(context.db, {
      clock: context.clock,
      pollMs: config.notificationPollMs,
      timeoutMs: config.notificationTimeoutMs,
      inFlightPerApp: config.notificationInFlightPerApp,
      loopback: context.policy.notificationTargets.loopback,
      sign: (request) => notificationSigner.sign(request),
      count: metrics.services.notificationAttempt,
      onError: (error) => app.log.error({ err: error }, 'delivering notifications failed'),
    });
    app.addHook('onClose', stopDelivery);
  }

  // At the origin, as RFC 8615 places well-known URIs.
  jwksRoutes(app.withTypeProvider<TypeBoxTypeProvider>(), pipeline, notificationSigner);
  await app.register(
    async (scope) => {
      const api = scope.withTypeProvider<TypeBoxTypeProvider>();
      await docsRoutes(
        api,
        context,
        pipeline,
        context.policy.sandboxTools ? () => findSandboxApp(context.db, config) : undefined,
      );
      healthRoutes(api, context, pipeline, monitor);
      tokenRoutes(api, context, pipeline, config.basePath);
      authorizationRoutes(api, context, pipeline);
      decoupledAuthorizationRoutes(api, context, pipeline, config.basePath);
      psuRoutes(api, context, pipeline, isDatabaseUnavailable);
      oidcRoutes(api, context, pipeline, isDatabaseUnavailable);
      dashboardRoutes(api, context, pipeline, isDatabaseUnavailable);
      dashboardOidcRoutes(api, context, pipeline, isDatabaseUnavailable);
      paymentInitiationRoutes(api, context, pipeline);
      paymentExecutionRoutes(api, context, pipeline);
      shortTermConsentRoutes(api, context, pipeline);
      consentRoutes(api, context, pipeline);
      accountRoutes(api, context, pipeline);
      cardAccountRoutes(api, context, pipeline);
      thirdPartyRoutes(api, context, pipeline);
      subscriptionRoutes(api, context, pipeline);
      fundsConfirmationRoutes(api, context, pipeline);
      notificationRoutes(api, context, pipeline);
      seV1Routes(api, pipeline);
      if (context.policy.sandboxTools)
        sandboxRoutes(api, context, pipeline, {
          testData: () => listTestData(context.db, context.config),
          reset: async (day) => {
            await resetSandbox(context.db, day);
            // Every app's clock is back on real time.
            context.caches.apps.clear();
            // The reset deleted the payments and restored the accounts that this process remembers.
            context.caches.finalPayments.clear();
            context.caches.debtorAccounts.clear();
          },
        });
      if (context.policy.sandboxTools) {
        // What an advance of an app's clock runs at once, on the app's new time.
        clockRoutes(api, context, pipeline, [
          (clientId) => bookDuePayments(context, clientId),
          (clientId) => expireConsentsOfApp(context, clientId),
        ]);
      }
    },
    { prefix: config.basePath },
  );
  // The OAuth token and decoupled routes under the real service's other prefixes too (AUTH_BASE_PATHS).
  for (const prefix of config.authBasePaths) {
    await app.register(
      async (scope) => {
        const auth = scope.withTypeProvider<TypeBoxTypeProvider>();
        tokenRoutes(auth, context, pipeline, prefix);
        decoupledAuthorizationRoutes(auth, context, pipeline, prefix);
      },
      { prefix },
    );
  }
  return app;
}

/**
 * The composition root: the policy of the mode, the bank's systems (the ones given, else the
 * built-in ones), and the registry where each feature says what a PSU can authorize.
 */
export function serviceContext(
  dependencies: AppDependencies,
  metrics: ServiceMetrics = SILENT_METRICS,
  monitor?: SystemMonitor,
): ServiceContext {
  const { config, store } = dependencies;
  const policy = policyFor(config.mode, scenarioOf, settlementOf);
  const realClock = dependencies.clock ?? (() => new Date());
  // In the sandbox, a request of an app that advanced its clock sees the app's time (app-clock.ts).
  const clock = policy.sandboxTools ? appClock(realClock) : realClock;
  const builtIn = builtInSystems(store.db, {
    readDb: store.readDb,
    clock,
    enforceFunds: policy.enforceFunds,
    instantEid: policy.instantEid,
    scenarioOf: policy.scenarioOf,
    // The built-in ledger converts with the bank's rates where they are given.
    ...(dependencies.systems?.rates === undefined ? {} : { rates: dependencies.systems.rates }),
  });
  const observed =
    monitor === undefined ? dependencies.systems : observedSystems(dependencies.systems, monitor);
  const { customers, psuIdentityProvider, recordedBookings, ...given } = observed ?? {};
  // What the built-in systems bring beside their ports is wired only while they are the ones in use.
  const { recordedBookings: ledgerBookings, simulatedEid, ...builtInPorts } = builtIn;
  const systems = { ...builtInPorts, ...given };
  const directory =
    customers === undefined ? systems.psuDirectory : withCustomers(systems.psuDirectory, customers);
  // What the bank's own systems vouch for gets a reference row (adapters/bank-references.ts).
  const bankOwn =
    given.coreBanking !== undefined || given.psuDirectory !== undefined || customers !== undefined;
  const vouched = bankOwn
    ? referencing(store.db, { coreBanking: systems.coreBanking, psuDirectory: directory }, (accountId) =>
        dependencies.logger?.warn(
          { accountId },
          "the bank names another PSU as this account's owner, but payments of its earlier owner hold it in the gateway: initiations from it are refused",
        ),
      )
    : { coreBanking: systems.coreBanking, psuDirectory: directory };
  const context: ServiceContext = {
    config,
    policy,
    db: store.db,
    readDb: store.readDb,
    clock,
    sleep: dependencies.sleep ?? ((ms) => wait(ms)),
    ...systems,
    ...vouched,
    recordedBookings: recordedBookings ?? (given.coreBanking === undefined ? ledgerBookings : undefined),
    simulatedEid: given.eid === undefined ? simulatedEid : undefined,
    psuIdentityProvider,
    caches: newCaches(),
    authorizables: new AuthorizableRegistry(),
    mtls: dependencies.tls?.ca !== undefined,
    metrics,
  };
  // Payments first: a PIS scope names a payment or basket far more often than a short-term consent.
  context.authorizables.register(...paymentAuthorizables(context), ...consentAuthorizables(context));
  return context;
}

/**
 * The state of the systems the gateway depends on: its database and Redis, and the bank's systems whose
 * probes are given (systems.ts); each probe bounded by the readiness timeout.
 */
export function systemMonitor(
  dependencies: Pick<AppDependencies, 'store' | 'redis' | 'clock'>,
  bankProbes: readonly SystemProbe[] = [],
): SystemMonitor {
  const { store, redis } = dependencies;
  return new SystemMonitor([...storeProbes(store.db, { database: store.kind, redis }), ...bankProbes], {
    timeoutMs: READY_TIMEOUT_MS,
    ...(dependencies.clock === undefined ? {} : { clock: dependencies.clock }),
  });
}

/** The bank's systems given and probed, each call of theirs told to the monitor (latency, errors, up or down). */
function observedSystems(
  systems: AppDependencies['systems'],
  monitor: SystemMonitor,
): AppDependencies['systems'] {
  if (systems === undefined) return undefined;
  // Those the monitor probes: the bank's systems the settings connect (systems.ts), not a test's fakes.
  const probed = (system: SystemName) => monitor.probes.some((probe) => probe.system === system);
  const { coreBanking, customers, eid, psuIdentityProvider } = systems;
  return {
    ...systems,
    ...(coreBanking === undefined || !probed('coreBanking')
      ? {}
      : { coreBanking: observedPort(coreBanking, 'coreBanking', monitor) }),
    // The bank's customers are its core banking system's answer (systems.ts).
    ...(customers === undefined || !probed('coreBanking')
      ? {}
      : { customers: observedPort(customers, 'coreBanking', monitor) }),
    ...(eid === undefined || !probed('eid') ? {} : { eid: observedPort(eid, 'eid', monitor) }),
    ...(psuIdentityProvider === undefined || !probed('psuLogin')
      ? {}
      : {
          psuIdentityProvider: observedPort(psuIdentityProvider, 'psuLogin', monitor, (result) => {
            const login = result as { ok?: boolean; reason?: string; detail?: string } | undefined;
            return login?.ok === false && login.reason === 'unavailable' ? login.detail : undefined;
          }),
        }),
  };
}

/** A context's metrics where nobody reads them (a context built for a test or a tool). */
const SILENT_METRICS: ServiceMetrics = {
  paymentStatus: () => {},
  notificationAttempt: () => {},
  paymentExecuted: () => {},
  paymentRejected: () => {},
  decoupledSessionStarted: () => {},
  decoupledSessionEnded: () => {},
  tokenIssued: () => {},
};
