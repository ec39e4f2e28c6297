// The sandbox clock of the calling app (GET and POST /sandbox/clock): the app is the one of the client
// credentials token; advancing runs at once what has come due for the app (services/shared/sandbox-clock.ts).

import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { App } from '../../domain/apps.ts';
import { apiError } from '../../domain/errors.ts';
import { parseAdvance } from '../../domain/sandbox-clock.ts';
import { grantOf } from '../../http/request-context.ts';
import { appOf } from '../../services/access/apps.ts';
import type { ServiceContext } from '../../services/shared/context.ts';
import { advanceAppClock, type DueWork, readAppClock } from '../../services/shared/sandbox-clock.ts';
import { bearer } from '../shared/bearer.ts';
import type { Pipelines } from '../shared/pipeline.ts';
import { answer, apiErrors, BODY_ERRORS } from '../shared/schemas.ts';

const tags = ['Sandbox'];

const ClockAnswer = Type.Object({
  now: Type.String({ description: "The app's sandbox time now (ISO 8601, UTC)" }),
  offset: Type.String({
    description: 'How far it is ahead of real time: an ISO 8601 duration (PT0S when not at all)',
  }),
});

const AdvanceBody = Type.Object(
  {
    advance: Type.String({
      maxLength: 32,
      description:
        'An ISO 8601 duration of days, hours and minutes, from PT1M to P400D: P2D, PT36H, P1DT2H30M',
    }),
  },
  { additionalProperties: false },
);

const BAD_ADVANCE =
  'advance must be an ISO 8601 duration of days, hours and minutes, from PT1M to P400D (for example P2D or PT36H)';

/** The app of the request's client credentials token. */
async function callingApp(context: ServiceContext, request: FastifyRequest): Promise<App> {
  const grant = grantOf(request);
  const app = grant.kind === 'client_credentials' ? await appOf(context, grant.clientId) : undefined;
  if (app === undefined) {
    throw apiError('TOKEN_INVALID', 'This call needs a client credentials token of the app', 'Authorization');
  }
  return app;
}

export function clockRoutes(
  app: FastifyInstance,
  context: ServiceContext,
  { route }: Pipelines,
  due: readonly DueWork[],
): void {
  // As the sandbox's other routes, no rate limit: the token names the app.
  const onRequest = [bearer(context)];
  app.get(
    '/sandbox/clock',
    route({
      onRequest,
      schema: {
        summary: "The calling app's sandbox clock",
        operationId: 'getSandboxClock',
        tags,
        response: { 200: answer(ClockAnswer, 'The clock now'), ...apiErrors(401, 500) },
      },
      handler: async (request) => readAppClock(context, await callingApp(context, request)),
    }),
  );

  app.post(
    '/sandbox/clock',
    route({
      onRequest,
      schema: {
        summary:
          "Advance the calling app's sandbox clock; what has come due runs at once (future-dated payments, settlements, consents' expiry)",
        operationId: 'advanceSandboxClock',
        tags,
        body: AdvanceBody,
        response: {
          200: answer(ClockAnswer, 'Advanced; what was due has run'),
          ...apiErrors(400, 401, 500, ...BODY_ERRORS),
        },
      },
      handler: async (request) => {
        const ms = parseAdvance(request.body.advance);
        if (ms === undefined) throw apiError('FORMAT_ERROR', BAD_ADVANCE, 'advance');
        return advanceAppClock(context, await callingApp(context, request), ms, due);
      },
    }),
  );
}
