// GET /healthz: the process is up and its database answers.
import { Type } from '@sinclair/typebox';
import { sql } from 'drizzle-orm';
import type { ServiceContext } from '../../services/shared/context.ts';
import type { Api } from '../shared/api.ts';

const Health = Type.Object({
  status: Type.Union([Type.Literal('ok'), Type.Literal('unavailable')]),
  mode: Type.Union([Type.Literal('sandbox'), Type.Literal('live')]),
});

export function healthRoutes(app: Api, context: ServiceContext): void {
  app.get(
    '/healthz',
    {
      schema: {
        summary: 'Is the service up and its database answering',
        operationId: 'getHealth',
        tags: ['Service'],
        response: {
          200: { ...Health, description: 'Up' },
          503: { ...Health, description: 'The database does not answer' },
        },
      },
    },
    async (request, reply) => {
      try {
        await context.db.execute(sql`SELECT 1`);
        return { status: 'ok' as const, mode: context.policy.mode };
      } catch (error) {
        request.log.error({ err: error }, 'health check: database unavailable');
        reply.code(503);
        return { status: 'unavailable' as const, mode: context.policy.mode };
      }
    },
  );
}
