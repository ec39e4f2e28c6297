// A request that carries text a database cannot hold (domain/text.ts) in its path, query or body is
// refused before any handler sees it, in the error shape of its endpoint. A route that must answer
// such text in a shape of its own (authorize: a redirect) says `checksOwnText` and checks it itself;
// one that declares no input is not checked.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { apiError, OAuthError } from '../domain/errors.ts';
import { showStorable, UNSTORABLE_TEXT, unstorableAt } from '../domain/text.ts';
import { isOAuthRoute } from './errors.ts';

function unstorableIn(request: FastifyRequest): string | undefined {
  return (
    unstorableAt(request.params, '') ?? unstorableAt(request.query, '') ?? unstorableAt(request.body, '')
  );
}

export function registerTextGuard(app: FastifyInstance): void {
  // Callback-style: every request passes it (an async hook costs a promise and a microtask turn).
  app.addHook('preValidation', (request, _reply, done) => done(refusal(request)));
}

function refusal(request: FastifyRequest): Error | undefined {
  if (request.routeOptions.config?.checksOwnText === true) return undefined;
  // A route that declares no parameters, query or body takes no text in (health, documents, pages):
  // whatever a caller appends is ignored, not refused.
  const schema = request.routeOptions.schema;
  if (schema?.params === undefined && schema?.querystring === undefined && schema?.body === undefined)
    return undefined;
  const at = unstorableIn(request);
  if (at === undefined) return undefined;
  // A member's name may itself hold the character: it is shown as U+FFFD.
  const name = showStorable(at);
  const text = `${name === '' ? 'the body' : name} ${UNSTORABLE_TEXT}`;
  if (isOAuthRoute(request)) return new OAuthError('invalid_request', text);
  return apiError('FORMAT_ERROR', text, name === '' ? undefined : name);
}
