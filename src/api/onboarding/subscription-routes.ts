// POST /psd2/v1/subscriptions (spec rows 4 and 5): register an app, or add a product to one.
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { apiError } from '../../domain/errors.ts';
import { bearer } from '../../http/bearer.ts';
import { peerIdentity } from '../../http/mtls.ts';
import { grantOf } from '../../http/request-context.ts';
import { clientIdOf, header, tppIdsOnly } from '../../http/tpp-headers.ts';
import { type SubscriptionRequestBody, subscribe } from '../../services/onboarding/subscriptions.ts';
import type { ServiceContext } from '../../services/shared/context.ts';

const closed = { additionalProperties: false } as const;

const SubscriptionBody = Type.Object(
  {
    app: Type.Optional(
      Type.Object(
        {
          name: Type.String({ minLength: 1, maxLength: 100 }),
          description: Type.String({ maxLength: 500 }),
          oauthRedirectURI: Type.String({ minLength: 1, maxLength: 2000 }),
        },
        closed,
      ),
    ),
    clientId: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    product: Type.Object({ name: Type.String({ minLength: 1, maxLength: 64 }) }, closed),
  },
  closed,
);

const SubscriptionResponse = Type.Object({
  name: Type.String(),
  description: Type.String(),
  oauthRedirectURI: Type.String(),
  clientId: Type.String(),
  subscription: Type.Object({
    subscriptionId: Type.String(),
    product: Type.Object({ name: Type.String(), version: Type.String(), scope: Type.String() }),
  }),
});

export function subscriptionsRoutes(app: FastifyInstance, context: ServiceContext): void {
  app.post<{ Body: SubscriptionRequestBody }>(
    '/psd2/v1/subscriptions',
    {
      onRequest: [tppIdsOnly, bearer(context)],
      schema: { body: SubscriptionBody, response: { 200: SubscriptionResponse } },
    },
    async (request, reply) => {
      const tppId = clientIdOf(request, context.config.clientIdHeaderAliases);
      if (tppId === undefined) {
        throw apiError(
          'FORMAT_ERROR',
          'header X-Gateway-Client-Id (the TPP id) is required',
          'X-Gateway-Client-Id',
        );
      }
      const answer = await subscribe(context, {
        tppId,
        requestId: header(request, 'tpp-request-id')!,
        grant: grantOf(request),
        peer: peerIdentity(request),
        body: request.body,
      });
      return reply.code(answer.statusCode).send(answer.body);
    },
  );
}
