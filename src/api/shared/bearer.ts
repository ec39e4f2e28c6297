// Resolves "Authorization: Bearer <token>" to what the token grants, before the body is read. The hook
// lives with the routes, not in http/: it asks the kernel (services/access) for the token, and http/ is
// the plumbing below the use cases that never calls them.
import type { FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import { apiError } from '../../domain/errors.ts';
import { peerIdentity } from '../../http/mtls.ts';
import { resolveToken } from '../../services/access/tokens.ts';
import type { ServiceContext } from '../../services/shared/context.ts';

const BEARER = /^Bearer ([A-Za-z0-9._~+/-]+=*)$/i;

export function bearer(context: ServiceContext): onRequestAsyncHookHandler {
  return async function resolveBearer(request: FastifyRequest) {
    const authorization = request.headers.authorization;
    const match = authorization === undefined ? null : BEARER.exec(authorization);
    if (match === null) {
      throw apiError(
        'TOKEN_INVALID',
        'An access token is required: Authorization: Bearer <token>',
        'Authorization',
      );
    }
    request.grant = await resolveToken(context, match[1]!, peerIdentity(request));
  };
}
