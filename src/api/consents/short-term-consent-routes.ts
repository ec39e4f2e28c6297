// The Swedish short-term consent (spec rows 14 and 15).
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { bearer } from '../../http/bearer.ts';
import { grantOf, tppOf } from '../../http/request-context.ts';
import { corporateHeaders, tppHeaders } from '../../http/tpp-headers.ts';
import {
  createShortTermConsent,
  readConsentedAccounts,
} from '../../services/account-information/short-term-consent.ts';
import type { ServiceContext } from '../../services/shared/context.ts';
import { baseUrlOf } from '../base-url.ts';
import { AccountFields, Balances, ConsentResponse } from './schemas.ts';

const ConsentBody = Type.Object({ access: Type.Literal('ALL_ACCOUNTS') }, { additionalProperties: false });

const AccountsResponse = Type.Object({
  accounts: Type.Array(
    Type.Object({
      ...AccountFields,
      balances: Balances,
      cards: Type.Array(Type.Object({ maskedPan: Type.String(), name: Type.String() })),
    }),
  ),
});

export function shortTermConsentRoutes(app: FastifyInstance, context: ServiceContext): void {
  const live = () => ({ role: 'PIS' as const, products: ['payments-se-private'] });
  const hooks = [tppHeaders(context, { country: 'path', live }), bearer(context)];

  app.post<{ Body: { access: 'ALL_ACCOUNTS' } }>(
    '/psd2/se/v2/payments/private/accounts/shorttermconsents',
    { onRequest: hooks, schema: { body: ConsentBody, response: { 200: ConsentResponse } } },
    async (request, reply) => {
      const tpp = tppOf(request);
      const answer = await createShortTermConsent(context, {
        app: tpp.app,
        grant: grantOf(request),
        requestId: tpp.requestId,
        access: request.body.access,
        corporate: corporateHeaders(request),
        baseUrl: baseUrlOf(context.config, request),
      });
      return reply.code(answer.statusCode).send(answer.body);
    },
  );

  app.get(
    '/psd2/se/v2/payments/private/accounts',
    { onRequest: hooks, schema: { response: { 200: AccountsResponse } } },
    (request) => readConsentedAccounts(context, tppOf(request).app, grantOf(request)),
  );
}
