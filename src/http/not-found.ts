// A request for a path no route serves is answered before its body is read: the path decides first,
// whatever the Content-Type, the size or the syntax of the body (a form posted to /oauth2/token was
// answered 415 "Content-Type must be application/json" by the JSON routes' parser, issue 40). A path
// that a route serves with other methods is 405 with Allow; any other 404 RESOURCE_UNKNOWN, with a hint
// that names our nearest route (http/route-table.ts). The path asked for is never repeated.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, OAuthError } from '../domain/errors.ts';
import { describeDifference, RouteTable } from './route-table.ts';

/**
 * Collects the routes as they are registered (call before any route) and answers every request that
 * reaches none of them. Fastify routes such a request to its not-found handler after the onRequest
 * hooks, but parses its body first; the hook answers before that.
 */
export function registerNotFound(app: FastifyInstance, basePath: string): void {
  const table = new RouteTable(basePath);
  app.addHook('onRoute', (route) => {
    const oauth = route.config?.errorShape === 'oauth';
    for (const method of [route.method].flat()) table.add(method, route.url, oauth);
  });
  // Callback-style, as every hook each request passes (issue 18): a request that has a route pays a
  // property read.
  app.addHook('onRequest', (request, reply, done) => {
    done(request.is404 ? noRoute(table, request, reply) : undefined);
  });
  app.setNotFoundHandler((request, reply) => {
    throw noRoute(table, request, reply);
  });
}

/** The 405 (with Allow) or the 404 for a request no route serves. */
function noRoute(table: RouteTable, request: FastifyRequest, reply: FastifyReply): Error {
  const { methods, oauth } = table.methodsAt(request.url);
  if (methods.length > 0) {
    reply.header('Allow', methods.join(', '));
    const text = `This endpoint takes ${methods.filter((method) => method !== 'HEAD').join(', ') || 'HEAD'}, not ${request.method}`;
    return oauth
      ? new OAuthError('invalid_request', text, 405)
      : new ApiError({ code: 'SERVICE_INVALID', text });
  }
  return new ApiError({ code: 'RESOURCE_UNKNOWN', text: notFoundText(table, request.url, request.method) });
}

/** "There is no endpoint for POST at this path", and our nearest route when one is near. */
export function notFoundText(table: RouteTable, url: string, method: string): string {
  const text = `There is no endpoint for ${method} at this path`;
  const near = table.nearest(url, method);
  if (near === undefined) return text;
  const why = near.differences.map(describeDifference).join('; ');
  return `${text}; did you mean ${near.methods.join(' or ')} ${near.path} (${why})?`;
}
