// Card accounts (spec row 16): GET /psd2/v1/card-accounts, /{accountId}, /{accountId}/balances,
// /{accountId}/transactions. Cards show masked PANs only.
import { Type } from '@sinclair/typebox';
import {
  listConsentedCardAccounts,
  readCardAccountBalances,
  readCardAccountTransactions,
  readConsentedCardAccount,
} from '../../services/account-information/card-accounts.ts';
import type { ServiceContext } from '../../services/shared/context.ts';
import {
  ACCOUNT_APIS,
  aisCall,
  TransactionsQuery,
  TransactionsResponse,
} from '../accounts/account-routes.ts';
import { type Api, asBody } from '../shared/api.ts';
import { bearer } from '../shared/bearer.ts';
import type { Pipelines } from '../shared/pipeline.ts';
import { answer, apiErrors, BEARER, TPP_CALL_ERRORS, tppHeaderSchema } from '../shared/schemas.ts';
import { tppHeaders } from '../shared/tpp-app.ts';

/** Card accounts are read under general account consents, at /psd2/v1. */
const CARD_ACCOUNTS_API = ACCOUNT_APIS[0]!;

const Money = Type.Object({ currency: Type.String(), amount: Type.String() });
const CardBalances = Type.Array(Type.Object({ balanceType: Type.String(), balanceAmount: Money }));
const CardAccount = Type.Object({
  accountId: Type.String(),
  cards: Type.Array(Type.Object({ maskedPan: Type.String(), name: Type.String() })),
  currency: Type.String(),
  product: Type.String(),
  creditLimit: Money,
  balances: CardBalances,
});
const Params = Type.Object({
  accountId: Type.String({ maxLength: 64, description: 'The accountId of the card account list' }),
});
const READ_ERRORS = apiErrors(...TPP_CALL_ERRORS, 429);
const common = { tags: ['Card accounts'], security: BEARER, headers: tppHeaderSchema() };

export function cardAccountRoutes(app: Api, context: ServiceContext, { route, limits }: Pipelines): void {
  const live = () => ({ role: 'AIS' as const, products: ['card-accounts'] });
  // Counted per address first, then the TPP headers and the token, then counted per app.
  const steps = [
    limits.apiAddress,
    tppHeaders(context, { country: 'path', live }),
    bearer(context),
    limits.apiApp,
  ];
  const prefix = '/psd2/v1/card-accounts';
  const call = (request: Parameters<typeof aisCall>[1]) => aisCall(context, request, CARD_ACCOUNTS_API);

  app.get(
    prefix,
    route({
      onRequest: steps,
      schema: {
        ...common,
        summary: 'List the card accounts of a consent',
        description:
          "With the PSU's token of an account consent (`AIS:<consentId>`). Cards show masked PANs only.",
        operationId: 'listCardAccounts',
        response: {
          200: answer(Type.Object({ cardAccounts: Type.Array(CardAccount) }), 'The card accounts'),
          ...READ_ERRORS,
        },
      },
      handler: async (request) => asBody(await listConsentedCardAccounts(context, call(request))),
    }),
  );

  app.get(
    `${prefix}/:accountId`,
    route({
      onRequest: steps,
      schema: {
        ...common,
        summary: 'Read a card account',
        operationId: 'getCardAccount',
        params: Params,
        response: { 200: answer(CardAccount, 'The card account'), ...READ_ERRORS },
      },
      handler: async (request) =>
        asBody(await readConsentedCardAccount(context, call(request), request.params.accountId)),
    }),
  );

  app.get(
    `${prefix}/:accountId/balances`,
    route({
      onRequest: steps,
      schema: {
        ...common,
        summary: "Read a card account's balances",
        operationId: 'getCardAccountBalances',
        params: Params,
        response: {
          200: answer(Type.Object({ accountId: Type.String(), balances: CardBalances }), 'The balances'),
          ...READ_ERRORS,
        },
      },
      handler: async (request) =>
        asBody(await readCardAccountBalances(context, call(request), request.params.accountId)),
    }),
  );

  app.get(
    `${prefix}/:accountId/transactions`,
    route({
      onRequest: steps,
      schema: {
        ...common,
        summary: "Read a card account's transactions",
        operationId: 'getCardAccountTransactions',
        params: Params,
        querystring: TransactionsQuery,
        response: { 200: answer(TransactionsResponse, 'The transactions'), ...READ_ERRORS },
      },
      handler: async (request) =>
        asBody(
          await readCardAccountTransactions(context, call(request), request.params.accountId, request.query),
        ),
    }),
  );
}
