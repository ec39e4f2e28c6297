// GET /metrics: the gateway's metrics in Prometheus's text format (http/metrics.ts), outside BASE_PATH.
// On the public listener only where the policy says so (the sandbox); live they are served on their
// own listener (METRICS_PORT, main.ts), and the public listener answers 404.
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { GatewayMetrics } from '../../http/metrics.ts';
import type { Pipelines } from '../shared/pipeline.ts';

export function metricsRoutes(
  app: FastifyInstance,
  { route }: Pipelines,
  metrics: Pick<GatewayMetrics, 'exposition'>,
): void {
  app.get(
    '/metrics',
    route({
      schema: {
        summary: "The gateway's metrics, in Prometheus's text format",
        operationId: 'getMetrics',
        tags: ['Service'],
        response: {
          200: {
            description:
              'Requests by route and status with their latency, payments by product and status, executions and rejections, decoupled sessions, tokens by grant, the database pool, batch sizes, the event loop lag',
            content: { 'text/plain': { schema: Type.String() } },
          },
        },
      },
      handler: async (_request, reply) => {
        const { contentType, text } = await metrics.exposition();
        reply.header('Cache-Control', 'no-store').type(contentType);
        return text;
      },
    }),
  );
}
