// GET /oauth2/authorize/1.0, also named /redirect/oauth2/authorize/1.0 (spec row 8).
import type { FastifyInstance } from 'fastify';
import { type AuthorizeQuery, authorize } from '../../services/authorize.ts';
import type { ServiceContext } from '../../services/context.ts';

export function authorizeRoutes(app: FastifyInstance, context: ServiceContext): void {
  for (const path of ['/oauth2/authorize/1.0', '/redirect/oauth2/authorize/1.0']) {
    app.get(path, async (request, reply) => {
      const location = await authorize(context, request.query as AuthorizeQuery);
      return reply.header('Cache-Control', 'no-store').redirect(location, 302);
    });
  }
}
