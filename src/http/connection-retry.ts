// A statement whose database connection died under it (the server restarted, a proxy or a failover
// cut it) failed before it could take effect; what only reads is then run once more, on a new
// connection from the pool, instead of answering 503: every route's own onRequest steps (they read the
// app, the token, the certificate) and the handler of a GET route whose pipeline says `retryReads` (a
// status or a consent: nothing written, nothing asked of another system). Other handlers are not run
// again: a GET may count a consent's daily reads or take a one-time state, a write's commit may have
// taken effect; they answer 503 and the client repeats them (writes under the same TPP-Request-ID, done
// once). Routes are wrapped by their pipeline (api/shared/pipeline.ts), not by a hook.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/** Whether an error is the loss of the database connection under a statement (store/database/unavailable.ts's isConnectionLost). */
export type ConnectionLost = (error: unknown) => boolean;

type Step = (this: FastifyInstance, request: FastifyRequest, reply: FastifyReply) => unknown;

function retryingOnce(step: Step, connectionLost: ConnectionLost): Step {
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

/**
 * The step (a hook or a handler) run once more when its connection dies under it. Async steps only: a
 * callback-style hook (request, reply, done) cannot be run twice this way and is answered as it is.
 */
export function retriedOnce<T>(step: T, connectionLost: ConnectionLost): T {
  return typeof step === 'function' && step.length < 3
    ? (retryingOnce(step as Step, connectionLost) as T)
    : step;
}
