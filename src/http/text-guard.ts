// A request that carries text a database cannot hold (domain/text.ts) in its path, query or body is
// refused before any handler sees it, in the error shape of its endpoint. A route that must answer
// such text in a shape of its own (authorize: a redirect) says `checksOwnText` and checks it itself;
// one that declares no input is not checked. The answer names where the text is, never the text: a
// member name the caller chose is named only when it reads as a field name (isShowableName), and
// the name that holds the character never.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { apiError, OAuthError } from '../domain/errors.ts';
import { UNSTORABLE_TEXT, type Unstorable, unstorableAt } from '../domain/text.ts';
import { isOAuthRoute } from './errors.ts';
import { isShowableName } from './tolerant-body.ts';

/** Each part of a request the guard reads, and how an answer speaks of a member whose name it cannot show. */
const PARTS = [
  { of: (request: FastifyRequest) => request.params, member: 'a path parameter' },
  { of: (request: FastifyRequest) => request.query, member: 'a query parameter' },
  { of: (request: FastifyRequest) => request.body, member: 'a field of the body' },
] as const;

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
  for (const part of PARTS) {
    const at = unstorableAt(part.of(request), '');
    if (at === undefined) continue;
    const { text, path } = described(at, part.member);
    if (isOAuthRoute(request)) return new OAuthError('invalid_request', text);
    return apiError('FORMAT_ERROR', text, path);
  }
  return undefined;
}

function described(at: Unstorable, member: string): { text: string; path: string | undefined } {
  const path = at.path !== '' && at.path.split('.').every(isShowableName) ? at.path : undefined;
  if (at.inName) {
    return path === undefined
      ? { text: `the name of ${member} ${UNSTORABLE_TEXT}`, path }
      : { text: `${path} has a member whose name ${UNSTORABLE_TEXT}`, path };
  }
  if (path !== undefined) return { text: `${path} ${UNSTORABLE_TEXT}`, path };
  // Only a body can be a string itself.
  return { text: `${at.path === '' ? 'the body' : member} ${UNSTORABLE_TEXT}`, path };
}
