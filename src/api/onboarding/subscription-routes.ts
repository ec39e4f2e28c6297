// POST /psd2/v1/subscriptions (spec rows 4 and 5): register an app, or add a product to one.

import { Type } from '@sinclair/typebox';
import { auditActorOf } from '../../http/audit-actor.ts';
import { idempotencyKeyOf } from '../../http/idempotency-key.ts';
import { peerIdentity } from '../../http/mtls.ts';
import { grantOf } from '../../http/request-context.ts';
import { tppIdsOnly } from '../../http/tpp-headers.ts';
import { type SubscriptionRequestBody, subscribe } from '../../services/onboarding/subscriptions.ts';
import type { ServiceContext } from '../../services/shared/context.ts';
import { type Api, answerWith } from '../shared/api.ts';
import { bearer } from '../shared/bearer.ts';
import type { Pipelines } from '../shared/pipeline.ts';
import {
  answer,
  apiErrors,
  BEARER,
  BODY_ERRORS,
  idempotencyKeyHeader,
  tppIdHeaders,
} from '../shared/schemas.ts';
import { tppIdHeader } from '../shared/tpp-app.ts';

const closed = { additionalProperties: false } as const;

const SubscriptionBody = Type.Object(
  {
    app: Type.Optional(
      Type.Object(
        {
          name: Type.String({ minLength: 1, maxLength: 100 }),
          description: Type.String({ maxLength: 500 }),
          oauthRedirectURI: Type.String({ minLength: 1, maxLength: 2000 }),
          notificationHosts: Type.Optional(
            Type.Array(
              Type.String({
                maxLength: 253,
                pattern: '^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$',
              }),
              {
                maxItems: 20,
                uniqueItems: true,
                description:
                  "The hosts (lower-case DNS names) the app's status notifications may go to in live mode: a TPP-Notification-URI must be https on one of them (docs/notifications.md). Another list needs another app",
                examples: [['notify.tpp.example']],
              },
            ),
          ),
        },
        closed,
      ),
    ),
    clientId: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    product: Type.Object(
      {
        name: Type.String({
          minLength: 1,
          maxLength: 64,
          description:
            'consents, accounts, accounts-gb, accounts-lu-individual, accounts-lu-corporate, card-accounts, payments, payments-gb, payments-lu, funds-confirmations, funds-confirmations-gb, payments-se-corporate, payments-se-private',
        }),
      },
      closed,
    ),
  },
  {
    ...closed,
    description:
      'Register an app with its first product (app and product), or add a product to an app (clientId and product)',
    'x-examples': {
      register: {
        summary: 'Register an app with its first product',
        value: {
          app: {
            name: 'Budget Buddy',
            description: 'Pays bills',
            oauthRedirectURI: 'https://tpp.example/callback',
          },
          product: { name: 'payments-se-private' },
        },
      },
      subscribe: {
        summary: 'Add a product to an app',
        value: { clientId: '5b0f2c64-3f8e-4c1a-9a57-8f1b6f1e2d3c', product: { name: 'consents' } },
      },
    },
  },
);

const SubscriptionResponse = Type.Object({
  name: Type.String(),
  description: Type.String(),
  oauthRedirectURI: Type.String(),
  notificationHosts: Type.Array(Type.String()),
  clientId: Type.String(),
  subscription: Type.Object({
    subscriptionId: Type.String(),
    product: Type.Object({ name: Type.String(), version: Type.String(), scope: Type.String() }),
  }),
});

export function subscriptionRoutes(app: Api, context: ServiceContext, { route, limits }: Pipelines): void {
  app.post(
    '/psd2/v1/subscriptions',
    route({
      onRequest: [limits.apiAddress, tppIdsOnly, bearer(context), tppIdHeader(context), limits.apiApp],
      schema: {
        summary: 'Register an app, or subscribe an app to one more API product',
        description:
          "With the TPP's token of scope PSD2-ADMIN (client_id: the TPP id) and X-Gateway-Client-Id: the TPP id. One product per request. Answers the app and only the new subscription.",
        operationId: 'subscribe',
        tags: ['Onboarding'],
        security: BEARER,
        headers: Type.Object({
          'X-Gateway-Client-Id': Type.String({ minLength: 1, description: 'The TPP id from enrollment' }),
          ...tppIdHeaders,
          ...idempotencyKeyHeader,
        }),
        body: SubscriptionBody,
        response: {
          200: answer(SubscriptionResponse, 'The app and the new subscription'),
          ...apiErrors(400, 401, 403, 404, 409, 422, 500, ...BODY_ERRORS),
        },
      },
      handler: async (request, reply) => {
        const answer = await subscribe(context, {
          tppId: request.headers['x-gateway-client-id'],
          idempotencyKey: idempotencyKeyOf(request),
          grant: grantOf(request),
          peer: peerIdentity(request),
          body: request.body as SubscriptionRequestBody,
          actor: auditActorOf(request),
        });
        return answerWith(reply, answer);
      },
    }),
  );
}
