// POST /psd2/v1/funds-confirmations (spec row 16).
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { bearer } from '../../http/bearer.ts';
import { grantOf, tppOf } from '../../http/request-context.ts';
import { tppHeaders } from '../../http/tpp-headers.ts';
import { confirmFunds, type FundsRequest } from '../../services/account-information/funds-confirmation.ts';
import type { ServiceContext } from '../../services/shared/context.ts';

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
  closed,
);

export function fundsRoutes(app: FastifyInstance, context: ServiceContext): void {
  // Live: the CBPII role (PIS includes it) and a funds-confirmations subscription.
  const live = () => ({
    role: 'CBPII' as const,
    products: ['funds-confirmations', 'funds-confirmations-gb'],
  });
  app.post<{ Body: FundsRequest }>(
    '/psd2/v1/funds-confirmations',
    {
      onRequest: [tppHeaders(context, { country: 'path', live }), bearer(context)],
      schema: { body: FundsBody, response: { 200: Type.Object({ fundsAvailable: Type.Boolean() }) } },
    },
    (request) => confirmFunds(context, tppOf(request).app, grantOf(request), request.body),
  );
}
