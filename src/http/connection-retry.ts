// A statement whose database connection died under it (the server restarted, a proxy or a failover
// cut it) failed before it could take effect; what only reads is then run once more, on a new
// connection from the pool, instead of answering 503: every route's own onRequest steps (they read the
// app, the token, the certificate) and the handler of a GET route that says `readsOnly` (a status or a
// consent: nothing written, nothing asked of another system). Other handlers are not run again: a GET
// may count a consent's daily reads or take a one-time state, a write's commit may have taken effect;
// they answer 503 and the client repeats them (writes under the same TPP-Request-ID, done once).
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** A GET whose handler only reads this database: run once more when its connection dies. */
    readsOnly?: boolean;
  }
}

type Step = (this: FastifyInstance, request: FastifyRequest, reply: FastifyReply) => unknown;

function retryingOnce(step: Step, connectionLost: (error: unknown) => boolean): Step {
  return async function retryOnce(request, reply) {
    try {
      return await step.call(this, request, reply);
    } catch (error) {
      if (reply.sent || !connectionLost(error)) throw error;
      request.log.warn({ err: error }, 'the database connection died under a read: trying once more');
      return await step.call(this, request, reply);
    }
  };
}

export function registerConnectionRetry(
  app: FastifyInstance,
  connectionLost: (error: unknown) => boolean,
): void {
  app.addHook('onRoute', (route: RouteOptions) => {
    const hooks = route.onRequest;
    // Async steps only: a callback-style hook (request, reply, done) cannot be run twice this way.
    const wrap = (hook: unknown) =>
      typeof hook === 'function' && hook.length < 3 ? retryingOnce(hook as Step, connectionLost) : hook;
    if (hooks !== undefined)
      route.onRequest = (Array.isArray(hooks) ? hooks.map(wrap) : wrap(hooks)) as never;
    if (route.config?.readsOnly === true)
      route.handler = retryingOnce(route.handler as Step, connectionLost) as never;
  });
}
