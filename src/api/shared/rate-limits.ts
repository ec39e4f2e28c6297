// Rate limits (@fastify/rate-limit), counted per window of RATE_LIMIT_WINDOW_MS, each a named step that a
// route puts in its own pipeline (api/shared/pipeline.ts):
// - the API (every route whose headers name X-Gateway-Client-Id): per client address (apiAddress, the
//   first step, before anything is looked up), and per app once the call is authenticated (apiApp, the
//   last onRequest step, its app and token checked), so that nobody spends another app's allowance by
//   sending its public client id;
// - the authorization routes (token, authorize, decoupled): per client address before the body is read
//   (authorizationAddress, onRequest), and per app from that address (authorizationApp, first of
//   preValidation: the client_id parameter, the caller not being authenticated yet);
// - the PSU's password pages: per client address (psuAddress).
// Over a limit the answer is 429 with Retry-After, in the route's own error shape: the API's
// (ACCESS_EXCEEDED), RFC 6749's (temporarily_unavailable) or an HTML page. Each limited route documents
// its 429 here (documentTooMany), so that what is limited and what is documented cannot drift apart. The
// counters live in this process, or in Redis (REDIS_URL) shared by every process; a Redis that is away
// lets requests through (skipOnError) rather than fail them.
import fastifyRateLimit, {
  type FastifyRateLimitStore,
  type FastifyRateLimitStoreCtor,
  normalizeIP,
} from '@fastify/rate-limit';
import type { FastifyInstance, FastifyReply, FastifyRequest, FastifySchema } from 'fastify';
import type { Redis } from 'ioredis';
import type { Config } from '../../config.ts';
import { ApiError, OAuthError } from '../../domain/errors.ts';
import { isOAuthRoute } from '../../http/errors.ts';
import { HTML_PAGE } from '../oauth/answers.ts';
import { sendPsuAnswer } from '../psu/reply.ts';
import { apiErrors, oauthErrors } from './schemas.ts';

/** Where the counters of every limit live in Redis: then the limit's name and its key. */
const REDIS_NAMESPACE = 'psd2-gateway:rate-limit:';

/**
 * Counts one key's requests in its window, atomically: INCR, and PEXPIRE when the count starts (or the
 * key has no expiry, which would otherwise count for ever). Answers the count and the window's time
 * left in ms, as the plugin's stores do.
 */
const COUNT_SCRIPT = `
local current = redis.call('INCR', KEYS[1])
local ttl = redis.call('PTTL', KEYS[1])
if current == 1 or ttl < 0 then
  ttl = tonumber(ARGV[1])
  redis.call('PEXPIRE', KEYS[1], ttl)
end
return {current, ttl}
`;

/** The Redis client once COUNT_SCRIPT is defined on it (ioredis' defineCommand). */
interface CountingRedis extends Redis {
  psd2GatewayRateLimit(key: string, windowMs: number): Promise<[number, number]>;
}

function counting(redis: Redis): CountingRedis {
  if (!('psd2GatewayRateLimit' in redis))
    redis.defineCommand('psd2GatewayRateLimit', { numberOfKeys: 1, lua: COUNT_SCRIPT });
  return redis as CountingRedis;
}

/**
 * The counters in Redis, through the plugin's public store interface: every limit's keys directly
 * under REDIS_NAMESPACE, as the keyGenerator names them (the limit's name, then its key). The plugin
 * makes a child for each limit and would add the route's method and URL in its own store; our keys
 * name their limit themselves, so a child is the store itself. The limits here use neither
 * continueExceeding nor exponentialBackoff, so the plugin's options change nothing in the counting.
 */
function redisStore(redis: Redis): FastifyRateLimitStoreCtor {
  const counters = counting(redis);
  return class RedisCounters implements FastifyRateLimitStore {
    incr(
      key: string,
      callback: (error: Error | null, result?: { current: number; ttl: number }) => void,
      timeWindow: number,
    ): void {
      counters.psd2GatewayRateLimit(`${REDIS_NAMESPACE}${key}`, timeWindow).then(
        ([current, ttl]) => callback(null, { current, ttl }),
        (error: Error) => callback(error),
      );
    }
    child(): FastifyRateLimitStore {
      return this;
    }
  };
}

type Limiter = ReturnType<FastifyInstance['createRateLimit']>;

/** Whose limits: the API's, the authorization routes' or the PSU's password pages'. Each answers 429 in its own shape. */
export type LimitKind = 'api' | 'authorization' | 'psu-login';

interface Limit {
  /** Who is counted: "this app", "this address". */
  readonly who: string;
  readonly max: number;
  readonly check: Limiter;
  /** The key of the request in this limit, or undefined when it names none (then not counted). */
  readonly keyOf: (request: FastifyRequest) => string | undefined;
}

/** A limit as a route names it in its pipeline: its kind, and its step (none when its maximum is 0). */
export interface RateLimit {
  readonly kind: LimitKind;
  readonly step: ((request: FastifyRequest, reply: FastifyReply) => Promise<unknown>) | undefined;
}

/** The limits of one app, by name (config.rateLimits). */
export interface RateLimits {
  /** API calls per client address: the first step of an API route. */
  readonly apiAddress: RateLimit;
  /** API calls per app: the last onRequest step of an API route, once its app and token are checked. */
  readonly apiApp: RateLimit;
  /** Authorization calls per client address: the first step, before the body is read. */
  readonly authorizationAddress: RateLimit;
  /** Authorization calls per client_id and address: the first preValidation step, the body read. */
  readonly authorizationApp: RateLimit;
  /** The PSU's password pages per client address: the first step. */
  readonly psuAddress: RateLimit;
}

export interface RateLimitOptions {
  /** Shared counters (REDIS_URL); in this process's memory without. */
  readonly redis?: Redis | undefined;
}

/**
 * Registers the rate limit plugin and makes the limits of `config.rateLimits`, which routes name in
 * their pipelines. Call before the routes and before the OpenAPI document (registerOpenApi).
 */
export async function registerRateLimits(
  app: FastifyInstance,
  config: Config,
  options: RateLimitOptions = {},
): Promise<RateLimits> {
  const settings = config.rateLimits;
  await app.register(fastifyRateLimit, {
    global: false,
    timeWindow: settings.windowMs,
    // Redis away: the request goes on uncounted (store/redis.ts logs the outage once).
    skipOnError: true,
    ...(options.redis === undefined ? {} : { store: redisStore(options.redis) }),
  });
  const limit = (
    kind: LimitKind,
    name: string,
    max: number,
    who: string,
    keyOf: (request: FastifyRequest) => string | undefined,
  ): RateLimit => ({
    kind,
    step:
      max === 0
        ? undefined
        : enforce(
            {
              who,
              max,
              keyOf,
              // Each limit's keys start with its name: one store, no limit counts another's requests.
              check: app.createRateLimit({
                max,
                timeWindow: settings.windowMs,
                keyGenerator: (request) => `${name}:${keyOf(request)}`,
              }),
            },
            kind,
            config,
          ),
  });
  const address = (request: FastifyRequest) => normalizeIP(request.ip);
  return {
    apiAddress: limit('api', 'api-address', settings.apiPerAddress, 'this address', address),
    // request.tpp is set once the app is found (api/shared/tpp-app.ts), and the token checked after it.
    apiApp: limit('api', 'api-app', settings.apiPerApp, 'this app', (request) => request.tpp?.app.clientId),
    authorizationAddress: limit(
      'authorization',
      'auth-address',
      settings.authorizationPerAddress,
      'this address',
      address,
    ),
    authorizationApp: limit(
      'authorization',
      'auth-app',
      settings.authorizationPerApp,
      'this app',
      (request) => {
        const clientId = clientIdParameter(request);
        return clientId === undefined ? undefined : `${clientId}|${address(request)}`;
      },
    ),
    psuAddress: limit('psu-login', 'psu-address', settings.psuLoginPerAddress, 'this address', address),
  };
}

/** What a client id can look like (printable ASCII, at most 128): anything else is counted by address only. */
const CLIENT_ID = /^[!-~]{1,128}$/;

/** The client_id of an authorization call: in the form or JSON body, or in the query (authorize). */
function clientIdParameter(request: FastifyRequest): string | undefined {
  for (const source of [request.body, request.query]) {
    if (typeof source !== 'object' || source === null) continue;
    const value = (source as Record<string, unknown>).client_id;
    const first = Array.isArray(value) ? value[0] : value;
    if (typeof first === 'string' && CLIENT_ID.test(first)) return first;
  }
  return undefined;
}

function enforce(limit: Limit, kind: LimitKind, config: Config) {
  return async function rateLimit(request: FastifyRequest, reply: FastifyReply) {
    if (limit.keyOf(request) === undefined) return;
    const counted = await limit.check(request);
    if (counted.isAllowed || !counted.isExceeded) return;
    const seconds = Math.max(1, counted.ttlInSeconds);
    reply.header('Retry-After', String(seconds));
    const text = `Too many requests from ${limit.who}: at most ${limit.max} in ${Math.round(counted.timeWindow / 1000)} seconds; try again in ${seconds} seconds`;
    if (kind === 'psu-login') {
      return sendPsuAnswer(config, request, reply, {
        kind: 'page',
        status: 429,
        page: {
          view: 'message',
          title: 'Too many attempts',
          text: `Too many attempts from this address; try again in ${seconds} seconds.`,
        },
      });
    }
    if (isOAuthRoute(request)) throw new OAuthError('temporarily_unavailable', text, 429);
    throw new ApiError({ code: 'ACCESS_EXCEEDED', text });
  };
}

/**
 * A limited route's schema with its 429, in its error shape (the OAuth one where the route answers in
 * RFC 6749's), unless it documents one already.
 */
export function documentTooMany<S extends FastifySchema>(
  schema: S,
  kind: LimitKind,
  errorShape: 'oauth' | 'api' | undefined,
): S {
  const response = (schema.response ?? {}) as Record<string, unknown>;
  if (response['429'] !== undefined) return schema;
  const answer =
    kind === 'psu-login'
      ? HTML_PAGE('Too many attempts from this address: try again after Retry-After seconds')
      : errorShape === 'oauth'
        ? oauthErrors(429)[429]
        : apiErrors(429)[429];
  return { ...schema, response: { ...response, 429: answer } };
}
