// GET /oauth2/authorize/1.0, also named /redirect/oauth2/authorize/1.0 (spec row 8).
import type { FastifyInstance } from 'fastify';
import { type AuthorizeQuery, authorize } from '../../services/authorization/authorize.ts';
import type { ServiceContext } from '../../services/shared/context.ts';
import { sendPsuAnswer } from '../psu/reply.ts';

export function authorizeRoutes(app: FastifyInstance, context: ServiceContext): void {
  for (const path of ['/oauth2/authorize/1.0', '/redirect/oauth2/authorize/1.0']) {
    // Errors with a valid client and redirect URI are redirects (API-NOTES), also for unstorable text.
    app.get(path, { config: { checksOwnText: true } }, async (request, reply) => {
      const answer = await authorize(context, request.query as AuthorizeQuery);
      return sendPsuAnswer(context.config, request, reply, answer);
    });
  }
}
