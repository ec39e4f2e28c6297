// GET /healthz: the process is up and its database answers.
import { sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import type { ServiceContext } from '../../services/shared/context.ts';

export function healthRoutes(app: FastifyInstance, context: ServiceContext): void {
  app.get('/healthz', async (request, reply) => {
    try {
      await context.db.execute(sql`SELECT 1`);
      return { status: 'ok', mode: context.policy.mode };
    } catch (error) {
      request.log.error({ err: error }, 'health check: database unavailable');
      return reply.code(503).send({ status: 'unavailable', mode: context.policy.mode });
    }
  });
}
