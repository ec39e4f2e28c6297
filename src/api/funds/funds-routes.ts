// POST /psd2/v1/funds-confirmations (spec row 16).
import { Type } from '@sinclair/typebox';
import { grantOf, tppOf } from '../../http/request-context.ts';
import { confirmFunds, type FundsRequest } from '../../services/account-information/funds-confirmation.ts';
import type { ServiceContext } from '../../services/shared/context.ts';
import { type Api, asBody } from '../shared/api.ts';
import { bearer } from '../shared/bearer.ts';
import type { Pipelines } from '../shared/pipeline.ts';
import {
  answer,
  apiErrors,
  BEARER,
  BODY_ERRORS,
  TPP_CALL_ERRORS,
  tppHeaderSchema,
} from '../shared/schemas.ts';
import { tppHeaders } from '../shared/tpp-app.ts';

const closed = { additionalProperties: false } as const;
const FundsBody = Type.Object(
  {
    account: Type.Optional(Type.Object({ iban: Type.String({ maxLength: 42 }) }, closed)),
    cardNumber: Type.Optional(Type.String({ maxLength: 25 })),
    payee: Type.Optional(Type.String({ maxLength: 70 })),
    instructedAmount: Type.Object(
      {
        currency: Type.String({ maxLength: 3 }),
        amount: Type.Union([Type.String({ maxLength: 32 }), Type.Number()]),
      },
      closed,
    ),
  },
  {
    ...closed,
    description: 'The account (IBAN) or the card number, and the amount',
    'x-examples': {
      account: {
        summary: 'An account by IBAN',
        value: {
          account: { iban: 'SE7160000000000123456789' },
          instructedAmount: { currency: 'SEK', amount: '125.50' },
        },
      },
    },
  },
);

export function fundsConfirmationRoutes(
  app: Api,
  context: ServiceContext,
  { route, limits }: Pipelines,
): void {
  // Live: the CBPII role (PIS includes it) and a funds-confirmations subscription.
  const live = () => ({
    role: 'CBPII' as const,
    products: ['funds-confirmations', 'funds-confirmations-gb'],
  });
  app.post(
    '/psd2/v1/funds-confirmations',
    route({
      onRequest: [
        limits.apiAddress,
        tppHeaders(context, { country: 'path', live }),
        bearer(context),
        limits.apiApp,
      ],
      schema: {
        summary: 'Confirm that an amount is available on an account now',
        description:
          'With a client-credentials token of scope CBPII (the card-based payment instrument issuer) or PIS. Answers true or false, never the balance.',
        operationId: 'confirmFunds',
        tags: ['Funds confirmation'],
        security: BEARER,
        headers: tppHeaderSchema(),
        body: FundsBody,
        response: {
          200: answer(Type.Object({ fundsAvailable: Type.Boolean() }), 'Whether the amount is available'),
          ...apiErrors(...TPP_CALL_ERRORS, ...BODY_ERRORS),
        },
      },
      handler: async (request) =>
        asBody(
          await confirmFunds(context, tppOf(request).app, grantOf(request), request.body as FundsRequest),
        ),
    }),
  );
}
