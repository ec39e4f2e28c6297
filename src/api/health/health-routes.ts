// GET /healthz and /readyz: the process is up and its database answers a query within READY_TIMEOUT_MS
// (a load balancer sends traffic only then); GET /livez: the process runs (an orchestrator restarts it
// only when this fails, not when the database is away).
import { Type } from '@sinclair/typebox';
import { sql } from 'drizzle-orm';
import type { ServiceContext } from '../../services/shared/context.ts';
import type { Api } from '../shared/api.ts';

/** How long the database may take to answer a readiness check, ms. */
export const READY_TIMEOUT_MS = 2_000;

const Health = Type.Object({
  status: Type.Union([Type.Literal('ok'), Type.Literal('unavailable')]),
  mode: Type.Union([Type.Literal('sandbox'), Type.Literal('live')]),
});

export function healthRoutes(app: Api, context: ServiceContext): void {
  const ready = async (request: { log: { error(o: object, m: string): void } }) => {
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        context.db.execute(sql`SELECT 1`),
        new Promise((_, reject) => {
          timer = setTimeout(
            () => reject(new Error(`no answer within ${READY_TIMEOUT_MS} ms`)),
            READY_TIMEOUT_MS,
          );
        }),
      ]);
      return true;
    } catch (error) {
      request.log.error({ err: error }, 'readiness: the database does not answer');
      return false;
    } finally {
      clearTimeout(timer);
    }
  };
  for (const [path, operationId, summary] of [
    ['/healthz', 'getHealth', 'Is the service up and its database answering'],
    ['/readyz', 'getReadiness', 'Can the service take requests: its database answers in time'],
  ] as const) {
    app.get(
      path,
      {
        schema: {
          summary,
          operationId,
          tags: ['Service'],
          response: {
            200: { ...Health, description: 'Up' },
            503: { ...Health, description: `The database does not answer within ${READY_TIMEOUT_MS} ms` },
          },
        },
      },
      async (request, reply) => {
        if (await ready(request)) return { status: 'ok' as const, mode: context.policy.mode };
        reply.code(503);
        return { status: 'unavailable' as const, mode: context.policy.mode };
      },
    );
  }
  app.get(
    '/livez',
    {
      schema: {
        summary: 'Is the process running (the database is not asked)',
        operationId: 'getLiveness',
        tags: ['Service'],
        response: { 200: { ...Health, description: 'Running' } },
      },
    },
    async () => ({ status: 'ok' as const, mode: context.policy.mode }),
  );
}
