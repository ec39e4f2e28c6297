// Sandbox helpers: the static test data, and a callback page for the seeded app's default redirect URI.
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { type ServiceContext, today } from '../../services/shared/context.ts';

const TestAccount = Type.Object({
  accountId: Type.String(),
  iban: Type.Optional(Type.String()),
  bban: Type.Optional(Type.String()),
  clearingNumber: Type.Optional(Type.String()),
  currency: Type.String(),
  country: Type.String(),
  name: Type.String(),
  ownerName: Type.String(),
});

const TestDataSchema = Type.Object({
  scenarios: Type.Array(Type.Object({ trigger: Type.String(), outcome: Type.String() })),
  psus: Type.Array(
    Type.Object({
      psuId: Type.String(),
      name: Type.String(),
      type: Type.String(),
      corporateId: Type.Optional(Type.String()),
      accounts: Type.Array(TestAccount),
    }),
  ),
});

/** What the composition root hands in from src/sandbox/: the test data, and how to restore it. */
export interface SandboxOperations {
  testData(): Promise<unknown>;
  reset(today: string): Promise<void>;
}

export function sandboxRoutes(
  app: FastifyInstance,
  context: ServiceContext,
  operations: SandboxOperations,
): void {
  app.get('/sandbox/test-data', { schema: { response: { 200: TestDataSchema } } }, () =>
    operations.testData(),
  );

  // Restores the test customers, balances and history; removes every payment, consent and PSU token.
  app.post('/sandbox/reset', async (_request, reply) => {
    await operations.reset(today(context));
    return reply.code(200).send({ reset: true, date: today(context) });
  });

  // Where the seeded sandbox app lands by default: shows the code (or error) and state as JSON.
  app.get('/sandbox/callback', (request, reply) => {
    const query = request.query as Record<string, unknown>;
    const pick = (name: string) => (typeof query[name] === 'string' ? query[name] : undefined);
    return reply.header('Cache-Control', 'no-store').send({
      code: pick('code'),
      state: pick('state'),
      error: pick('error'),
      error_description: pick('error_description'),
    });
  });
}
