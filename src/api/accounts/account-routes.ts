// Accounts (spec row 16): GET /psd2/v1/accounts, /{accountId}?withBalance=true, /{accountId}/balances,
// /{accountId}/transactions?dateFrom=&dateTo=; the same under /psd2/gb/v1 for British accounts and
// /psd2/lu/v1 for Luxembourg's, and under /psd2/v2 with the real service's version 2 records.
import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { grantOf, tppOf } from '../../http/request-context.ts';
import { header } from '../../http/tpp-headers.ts';
import {
  type RecordShape,
  V1_RECORDS,
  V2_RECORDS,
} from '../../services/account-information/account-views.ts';
import {
  type AisCall,
  listConsentedAccounts,
  readAccountBalances,
  readAccountTransactions,
  readConsentedAccount,
} from '../../services/account-information/accounts.ts';
import type { AisApi } from '../../services/account-information/consents.ts';
import type { ServiceContext } from '../../services/shared/context.ts';
import { baseUrlOf } from '../base-url.ts';
import { AIS_APIS } from '../consents/consent-routes.ts';
import { AccountFields, Amount, Balances } from '../consents/schemas.ts';
import { type Api, asBody } from '../shared/api.ts';
import { bearer } from '../shared/bearer.ts';
import type { Pipelines } from '../shared/pipeline.ts';
import { answer, apiErrors, BEARER, TPP_CALL_ERRORS, tppHeaderSchema } from '../shared/schemas.ts';
import { tppHeaders } from '../shared/tpp-app.ts';

const Account = Type.Object({
  ...AccountFields,
  balances: Type.Optional(Balances),
  _links: Type.Object({ transactions: Type.Object({ href: Type.String() }) }),
});

export const TransactionsResponse = Type.Object({
  accountId: Type.String(),
  transactions: Type.Array(
    Type.Object({
      amount: Amount,
      bookingDate: Type.Optional(Type.String()),
      ledgerDate: Type.Optional(Type.String()),
      transactionDate: Type.String(),
      valueDate: Type.String(),
      creditDebit: Type.String(),
      creditorName: Type.Optional(Type.String()),
      debtorName: Type.Optional(Type.String()),
      remittanceInformation: Type.Optional(Type.String()),
      status: Type.String(),
    }),
  ),
});

export const TransactionsQuery = Type.Object(
  {
    dateFrom: Type.Optional(
      Type.String({
        maxLength: 10,
        description: 'First booking day (YYYY-MM-DD); default 90 days before dateTo',
      }),
    ),
    dateTo: Type.Optional(
      Type.String({ maxLength: 10, description: 'Last booking day (YYYY-MM-DD); default today' }),
    ),
  },
  { additionalProperties: false },
);

const WithBalance = Type.Object(
  {
    withBalance: Type.Optional(
      Type.Union([Type.Literal('true'), Type.Literal('false')], { description: 'Include the balances' }),
    ),
  },
  { additionalProperties: false },
);
const withBalance = (query: { withBalance?: 'true' | 'false' }, otherwise: boolean) =>
  query.withBalance === undefined ? otherwise : query.withBalance === 'true';
const AccountParams = Type.Object({
  accountId: Type.String({ maxLength: 64, description: 'The accountId of the account list' }),
});

/** An accounts API: where its paths live, the consents it reads under, the products it needs, its records. */
export interface AccountApi {
  readonly api: AisApi;
  readonly prefix: string;
  readonly products: readonly string[];
  readonly shape: RecordShape;
}

/**
 * The accounts of each API under its own prefix with version 1 records, and the general API's
 * version 2 (the real service's records: `/psd2/v2/accounts`, under the same consents).
 */
export const ACCOUNT_APIS: readonly AccountApi[] = [
  ...AIS_APIS.map(({ api, prefix, accounts }) => ({ api, prefix, products: accounts, shape: V1_RECORDS })),
  { api: 'general', prefix: '/psd2/v2', products: ['accounts'], shape: V2_RECORDS },
];

/**
 * An AIS read: the app, the PSU token, and for the daily count the resource (the path within its API,
 * so that v1 and v2 reads of one account count together) and whether the PSU is present.
 */
export function aisCall(context: ServiceContext, request: FastifyRequest, api: AccountApi): AisCall {
  const path = request.url.split('?')[0]!.slice(context.config.basePath.length + api.prefix.length);
  return {
    app: tppOf(request).app,
    grant: grantOf(request),
    read: { api: api.api, resource: path, psuPresent: header(request, 'psu-ip-address') !== undefined },
    baseUrl: baseUrlOf(context.config, request),
    prefix: api.prefix,
    shape: api.shape,
  };
}

/** How each accounts API is named in summaries and operation ids. */
function namesOf(accountApi: AccountApi): { suffix: string; api: string } {
  if (accountApi.shape === V2_RECORDS) return { suffix: 'V2', api: 'general API, version 2 records' };
  return {
    general: { suffix: '', api: 'general API' },
    gb: { suffix: 'Gb', api: 'Great Britain' },
    lu: { suffix: 'Lu', api: 'Luxembourg' },
  }[accountApi.api];
}

/** What every account read answers besides its record: the API errors, and 429 past the daily reads. */
const READ_ERRORS = apiErrors(...TPP_CALL_ERRORS, 429);

export function accountRoutes(app: Api, context: ServiceContext, { route, limits }: Pipelines): void {
  for (const accountApi of ACCOUNT_APIS) {
    const { prefix, products } = accountApi;
    const live = () => ({ role: 'AIS' as const, products });
    // Counted per address first, then the TPP headers and the token, then counted per app.
    const steps = [
      limits.apiAddress,
      tppHeaders(context, { country: 'path', live }),
      bearer(context),
      limits.apiApp,
    ];
    const { suffix, api } = namesOf(accountApi);
    const common = { tags: ['Accounts'], security: BEARER, headers: tppHeaderSchema() };

    app.get(
      `${prefix}/accounts`,
      route({
        onRequest: steps,
        schema: {
          ...common,
          summary: `List the accounts of a consent (${api})`,
          description:
            "With the PSU's token of the consent (`AIS:<consentId>`). Balances are included unless withBalance=false. Without PSU-IP-Address the read counts against the consent's frequencyPerDay.",
          operationId: `listAccounts${suffix}`,
          querystring: WithBalance,
          response: {
            200: answer(Type.Object({ accounts: Type.Array(Account) }), 'The accounts'),
            ...READ_ERRORS,
          },
        },
        // The list carries balances unless asked not to (as the real service's list).
        handler: async (request) =>
          asBody(
            await listConsentedAccounts(
              context,
              aisCall(context, request, accountApi),
              withBalance(request.query, true),
            ),
          ),
      }),
    );

    app.get(
      `${prefix}/accounts/:accountId`,
      route({
        onRequest: steps,
        schema: {
          ...common,
          summary: `Read an account (${api})`,
          operationId: `getAccount${suffix}`,
          params: AccountParams,
          querystring: WithBalance,
          response: { 200: answer(Account, 'The account'), ...READ_ERRORS },
        },
        handler: async (request) =>
          asBody(
            await readConsentedAccount(
              context,
              aisCall(context, request, accountApi),
              request.params.accountId,
              withBalance(request.query, false),
            ),
          ),
      }),
    );

    app.get(
      `${prefix}/accounts/:accountId/balances`,
      route({
        onRequest: steps,
        schema: {
          ...common,
          summary: `Read an account's balances (${api})`,
          operationId: `getBalances${suffix}`,
          params: AccountParams,
          response: {
            200: answer(Type.Object({ accountId: Type.String(), balances: Balances }), 'The balances'),
            ...READ_ERRORS,
          },
        },
        handler: async (request) =>
          asBody(
            await readAccountBalances(
              context,
              aisCall(context, request, accountApi),
              request.params.accountId,
            ),
          ),
      }),
    );

    app.get(
      `${prefix}/accounts/:accountId/transactions`,
      route({
        onRequest: steps,
        schema: {
          ...common,
          summary: `Read an account's transactions (${api})`,
          description: 'The transactions from dateFrom to dateTo (at most 15 months back).',
          operationId: `getTransactions${suffix}`,
          params: AccountParams,
          querystring: TransactionsQuery,
          response: { 200: answer(TransactionsResponse, 'The transactions'), ...READ_ERRORS },
        },
        handler: async (request) =>
          asBody(
            await readAccountTransactions(
              context,
              aisCall(context, request, accountApi),
              request.params.accountId,
              request.query,
            ),
          ),
      }),
    );
  }
}
