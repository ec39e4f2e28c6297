// GET /healthz and /readyz: the process is up and the systems it cannot serve without answer (its
// database, and the bank's core banking system where CORE_BANKING_URL is set), each within
// READY_TIMEOUT_MS: a load balancer sends traffic only then. Both name each system the gateway depends on
// and its state (up or down, when last checked, how long it took); a system that is not required (the
// e-ID service, the bank's login, the exchange-rate source, Redis) is reported but keeps the gateway
// ready: most calls still work without it. GET /livez: the process runs (an orchestrator restarts it
// only when this fails, not when a system is away). The answers are public and not rate-limited: a
// system's state younger than STATE_MAX_AGE_MS (2 s, from a probe or a call) is answered without asking it
// again, so asking in a loop costs the bank's systems at most one probe each per 2 s.
import { type Static, Type } from '@sinclair/typebox';
import { SYSTEM_NAMES } from '../../domain/bank-systems.ts';
import type { ServiceContext } from '../../services/shared/context.ts';
import type { SystemMonitor } from '../../services/shared/system-health.ts';
import type { Api } from '../shared/api.ts';
import type { Pipelines } from '../shared/pipeline.ts';

/** How long a system may take to answer a readiness check, ms. */
export const READY_TIMEOUT_MS = 2_000;

const SystemHealth = Type.Object({
  state: Type.Union([Type.Literal('up'), Type.Literal('down')]),
  checkedAt: Type.String({ description: 'When the state was last learnt, ISO 8601' }),
  latencyMs: Type.Number({ description: 'How long that check or call took' }),
  required: Type.Boolean({ description: 'Readiness depends on it' }),
});

const Systems = Type.Partial(
  Type.Object(Object.fromEntries(SYSTEM_NAMES.map((name) => [name, SystemHealth]))),
  {
    description:
      'Each system the gateway depends on (database, redis, coreBanking, eid, psuLogin, rates), where configured',
  },
);

const Health = Type.Object({
  status: Type.Union([Type.Literal('ok'), Type.Literal('unavailable')]),
  mode: Type.Union([Type.Literal('sandbox'), Type.Literal('live')]),
});

const SystemsHealth = Type.Object({ ...Health.properties, systems: Systems });

export function healthRoutes(
  app: Api,
  context: ServiceContext,
  { route }: Pipelines,
  monitor: SystemMonitor,
): void {
  const answer = async (request: { log: { error(o: object, m: string): void } }) => {
    const states = await monitor.check();
    const systems: Record<string, Static<typeof SystemHealth>> = {};
    for (const [system, { state, checkedAt, latencyMs, required, problem, where }] of states) {
      systems[system] = { state, checkedAt, latencyMs, required };
      if (state === 'down')
        request.log.error({ system, where, problem }, `health: ${system} does not answer`);
    }
    return { status: monitor.ready() ? ('ok' as const) : ('unavailable' as const), systems };
  };
  for (const [path, operationId, summary] of [
    ['/healthz', 'getHealth', 'Is the service up, and each system it depends on'],
    ['/readyz', 'getReadiness', 'Can the service take requests: the systems it needs answer in time'],
  ] as const) {
    app.get(
      path,
      route({
        schema: {
          summary,
          operationId,
          tags: ['Service'],
          response: {
            200: { ...SystemsHealth, description: 'Up: every required system answers' },
            503: {
              ...SystemsHealth,
              description: `A required system (the database; core banking where CORE_BANKING_URL is set) does not answer within ${READY_TIMEOUT_MS} ms`,
            },
          },
        },
        handler: async (request, reply) => {
          const { status, systems } = await answer(request);
          if (status !== 'ok') reply.code(503);
          return { status, mode: context.policy.mode, systems };
        },
      }),
    );
  }
  app.get(
    '/livez',
    route({
      schema: {
        summary: 'Is the process running (no system is asked)',
        operationId: 'getLiveness',
        tags: ['Service'],
        response: { 200: { ...Health, description: 'Running' } },
      },
      handler: async () => ({ status: 'ok' as const, mode: context.policy.mode }),
    }),
  );
}
