// Card accounts (spec row 16): GET /psd2/v1/card-accounts, /{accountId}, /{accountId}/balances,
// /{accountId}/transactions. Cards show masked PANs only.
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { bearer } from '../../http/bearer.ts';
import { tppHeaders } from '../../http/tpp-headers.ts';
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
const Params = Type.Object({ accountId: Type.String({ maxLength: 64 }) });
type Params = { Params: { accountId: string } };

export function cardAccountRoutes(app: FastifyInstance, context: ServiceContext): void {
  const live = () => ({ role: 'AIS' as const, products: ['card-accounts'] });
  const hooks = [tppHeaders(context, { country: 'path', live }), bearer(context)];
  const prefix = '/psd2/v1/card-accounts';

  app.get(
    prefix,
    {
      onRequest: hooks,
      schema: { response: { 200: Type.Object({ cardAccounts: Type.Array(CardAccount) }) } },
    },
    (request) => listConsentedCardAccounts(context, aisCall(context, request, CARD_ACCOUNTS_API)),
  );

  app.get<Params>(
    `${prefix}/:accountId`,
    { onRequest: hooks, schema: { params: Params, response: { 200: CardAccount } } },
    (request) =>
      readConsentedCardAccount(
        context,
        aisCall(context, request, CARD_ACCOUNTS_API),
        request.params.accountId,
      ),
  );

  app.get<Params>(
    `${prefix}/:accountId/balances`,
    {
      onRequest: hooks,
      schema: {
        params: Params,
        response: { 200: Type.Object({ accountId: Type.String(), balances: CardBalances }) },
      },
    },
    (request) =>
      readCardAccountBalances(
        context,
        aisCall(context, request, CARD_ACCOUNTS_API),
        request.params.accountId,
      ),
  );

  app.get<Params & { Querystring: { dateFrom?: string; dateTo?: string } }>(
    `${prefix}/:accountId/transactions`,
    {
      onRequest: hooks,
      schema: { params: Params, querystring: TransactionsQuery, response: { 200: TransactionsResponse } },
    },
    (request) =>
      readCardAccountTransactions(
        context,
        aisCall(context, request, CARD_ACCOUNTS_API),
        request.params.accountId,
        request.query,
      ),
  );
}
