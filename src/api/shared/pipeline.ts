// A route's whole pipeline in one place, as node-oidc-provider composes an action from an array of named
// steps: its rate limits (by name), its TPP headers and token checks, in the order they run, its schema
// and its handler, and whether that handler may be run again on a lost connection. Each route file
// registers the options that `route({ onRequest: [...], schema, handler })` makes; nothing joins a
// route behind its back (no onRoute hook adds a step).
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type {
  ContextConfigDefault,
  FastifyContextConfig,
  FastifyReply,
  FastifyRequest,
  FastifySchema,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
  RouteGenericInterface,
  RouteShorthandOptionsWithHandler,
} from 'fastify';
import { type ConnectionLost, retriedOnce } from '../../http/connection-retry.ts';
import { onAppClock } from '../../services/shared/app-clock.ts';
import { documentTooMany, type LimitKind, type RateLimit, type RateLimits } from './rate-limits.ts';

/** A step of a route's own: a check that reads the request (and the database), or answers early. */
type OwnStep = (request: FastifyRequest, reply: FastifyReply) => Promise<unknown>;

/** A step of a pipeline: one of the route's own, or a rate limit named from `limits`. */
export type PipelineStep = OwnStep | RateLimit;

type RouteOptions<S extends FastifySchema> = RouteShorthandOptionsWithHandler<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  RouteGenericInterface,
  ContextConfigDefault,
  S,
  TypeBoxTypeProvider
>;

export interface Pipeline<S extends FastifySchema> {
  readonly config?: FastifyContextConfig;
  /** Before the body is read: rate limits by address, the TPP headers, the token, the app's limit. */
  readonly onRequest?: readonly PipelineStep[];
  /** Once the body is read, before the schema checks it. */
  readonly preValidation?: readonly PipelineStep[];
  readonly schema: S;
  /** A GET whose handler only reads this database: run once more when its connection dies. */
  readonly retryReads?: boolean;
  readonly handler: RouteOptions<S>['handler'];
  /** The route's own error answers (the PSU's pages answer in HTML). */
  readonly errorHandler?: RouteOptions<S>['errorHandler'];
}

/** What route files are given: the helper, and the app's rate limits to name in their pipelines. */
export interface Pipelines {
  readonly route: <const S extends FastifySchema>(pipeline: Pipeline<S>) => RouteOptions<S>;
  readonly limits: RateLimits;
}

function isLimit(step: PipelineStep): step is RateLimit {
  return typeof step !== 'function';
}

type Handler = (this: unknown, request: FastifyRequest, reply: FastifyReply) => unknown;

/**
 * The handler on the clock of the request's app (services/shared/app-clock.ts): a sandbox app that
 * advanced its clock sees its own time; every other request runs the handler as it is.
 */
function onClockOfApp(handler: Handler): Handler {
  return function onClockOfTheApp(this: unknown, request: FastifyRequest, reply: FastifyReply) {
    const offsetMs = request.tpp?.app.clockOffsetMs;
    // The common case (live, and sandbox apps that never moved their clock) allocates nothing more.
    if (offsetMs === undefined || offsetMs === 0) return handler.call(this, request, reply);
    return onAppClock(offsetMs, () => handler.call(this, request, reply));
  };
}

/**
 * The helper of one app: its limits, and whether an error is a lost database connection. A limit
 * whose maximum is 0 is no step; a limited route documents its 429 (rate-limits.ts); the route's own
 * onRequest steps only read, so each is run once more when its connection dies (http/connection-retry.ts).
 */
export function pipelines(limits: RateLimits, connectionLost: ConnectionLost): Pipelines {
  const route = <const S extends FastifySchema>(pipeline: Pipeline<S>): RouteOptions<S> => {
    const {
      config,
      onRequest = [],
      preValidation = [],
      schema,
      retryReads,
      handler,
      errorHandler,
    } = pipeline;
    let limited: LimitKind | undefined;
    const steps = (list: readonly PipelineStep[], retried: boolean) =>
      list.flatMap((step) => {
        if (!isLimit(step)) return [retried ? retriedOnce(step, connectionLost) : step];
        if (step.step === undefined) return [];
        limited = step.kind;
        return [step.step];
      });
    const early = steps(onRequest, true);
    const late = steps(preValidation, false);
    return {
      ...(config === undefined ? {} : { config }),
      ...(early.length === 0 ? {} : { onRequest: early }),
      ...(late.length === 0 ? {} : { preValidation: late }),
      schema: limited === undefined ? schema : documentTooMany(schema, limited, config?.errorShape),
      handler: onClockOfApp(
        (retryReads === true ? retriedOnce(handler, connectionLost) : handler) as Handler,
      ),
      ...(errorHandler === undefined ? {} : { errorHandler }),
    } as RouteOptions<S>;
  };
  return { route, limits };
}
