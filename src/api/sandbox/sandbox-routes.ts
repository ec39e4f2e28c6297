// Sandbox helpers: the sandbox page, the test data as JSON, a reset, and a callback page for the
// seeded app's default redirect URI.
import type { FastifyInstance } from 'fastify';
import { type ServiceContext, today } from '../../services/shared/context.ts';
import { baseUrlOf } from '../base-url.ts';
import { HTML_PAGE } from '../oauth/answers.ts';
import type { Pipelines } from '../shared/pipeline.ts';
import { answer, apiErrors, BODY_ERRORS } from '../shared/schemas.ts';
import { renderSandboxPage, SANDBOX_PAGE_HEADERS } from './sandbox-page.ts';
import { CallbackAnswer, ResetAnswer, type SandboxTestData, TestDataSchema } from './schemas.ts';
import { walkthrough } from './walkthrough/walkthrough.ts';

/** What the composition root hands in from src/sandbox/: the test data, and how to restore it. */
export interface SandboxOperations {
  testData(): Promise<SandboxTestData>;
  reset(today: string): Promise<void>;
}

const tags = ['Sandbox'];

export function sandboxRoutes(
  app: FastifyInstance,
  context: ServiceContext,
  { route }: Pipelines,
  operations: SandboxOperations,
): void {
  app.get(
    '/sandbox',
    route({
      schema: {
        summary:
          'The sandbox page: its app, test data, scenarios and a curl walkthrough of every flow (HTML)',
        operationId: 'getSandboxPage',
        tags,
        response: { 200: HTML_PAGE('The page'), ...apiErrors(500) },
      },
      handler: async (request, reply) => {
        const data = await operations.testData();
        const baseUrl = baseUrlOf(context.config, request);
        const page = renderSandboxPage({ baseUrl, data, sections: walkthrough(baseUrl, data) });
        return reply.headers(SANDBOX_PAGE_HEADERS).type('text/html; charset=utf-8').send(page);
      },
    }),
  );

  app.get(
    '/sandbox/test-data',
    route({
      schema: {
        summary:
          'The test data: the sandbox app, test PSUs with accounts, card accounts, cards, creditors, password, scenarios',
        operationId: 'getSandboxTestData',
        tags,
        response: { 200: answer(TestDataSchema, 'The test data, read now'), ...apiErrors(500) },
      },
      handler: () => operations.testData(),
    }),
  );

  // Restores the test customers, balances and history; removes every payment, consent and PSU token.
  app.post(
    '/sandbox/reset',
    route({
      schema: {
        summary: 'Restore the test data; remove every payment, consent and PSU token',
        operationId: 'resetSandbox',
        tags,
        response: { 200: answer(ResetAnswer, 'Restored'), ...apiErrors(400, 500, ...BODY_ERRORS) },
      },
      handler: async (_request, reply) => {
        await operations.reset(today(context));
        return reply.code(200).send({ reset: true, date: today(context) });
      },
    }),
  );

  // Where the seeded sandbox app lands by default: shows the code (or error) and state as JSON.
  app.get(
    '/sandbox/callback',
    route({
      schema: {
        summary: "The seeded app's default redirect target: the code (or error) and state as JSON",
        operationId: 'getSandboxCallback',
        tags,
        response: { 200: answer(CallbackAnswer, 'What the redirect brought') },
      },
      handler: (request, reply) => {
        const query = request.query as Record<string, unknown>;
        const pick = (name: string) => (typeof query[name] === 'string' ? query[name] : undefined);
        reply.header('Cache-Control', 'no-store').send({
          code: pick('code'),
          state: pick('state'),
          error: pick('error'),
          error_description: pick('error_description'),
        });
      },
    }),
  );
}
