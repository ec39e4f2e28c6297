// POST /oauth2/token/1.0 (spec row 1), also at /redirect/oauth2/token/1.0 and
// /refresh/oauth2/token/1.0 (API-NOTES). Form-encoded only; RFC 6749 answers and errors.
import type { FastifyInstance } from 'fastify';
import { OAuthError } from '../../domain/errors.ts';
import { peerIdentity } from '../../http/mtls.ts';
import type { TokenParameters } from '../../services/authorization/grants/parameters.ts';
import { exchangeToken } from '../../services/authorization/grants/token-endpoint.ts';
import type { ServiceContext } from '../../services/shared/context.ts';

const TOKEN_PATHS = ['/oauth2/token/1.0', '/redirect/oauth2/token/1.0', '/refresh/oauth2/token/1.0'];

export function tokenRoutes(app: FastifyInstance, context: ServiceContext): void {
  for (const path of TOKEN_PATHS) {
    app.post(path, { config: { errorShape: 'oauth' } }, async (request, reply) => {
      if (!request.headers['content-type']?.toLowerCase().startsWith('application/x-www-form-urlencoded')) {
        throw new OAuthError('invalid_request', 'the body must be application/x-www-form-urlencoded');
      }
      const answer = await exchangeToken(
        context,
        (request.body ?? {}) as TokenParameters,
        peerIdentity(request),
      );
      return reply.header('Cache-Control', 'no-store').header('Pragma', 'no-cache').send(answer);
    });
  }
}
