// The steps the demo's flows share, each one request (or a few) through the typed client: a token, the
// redirect authorization, a domestic payment's initiation, its execution and status; and what the
// flows are given to work with.
import {
  type HttpAnswer,
  type SandboxTestData,
  type TokenAnswer,
  type TppClient,
  TppError,
} from '@psd2-gateway/client';
import type { Walk } from './walk.ts';

/** What every flow is given: the client, the progress, the test accounts it pays from and to. */
export interface DemoContext {
  readonly client: TppClient;
  readonly walk: Walk;
  readonly accounts: DemoAccounts;
}

/** BBANs of the payer's first account (the payer approves at once in the sandbox) and of the payee's. */
export interface DemoAccounts {
  readonly debtor: string;
  readonly creditor: string;
}

/** README "Sandbox test data": Tolvan pays, Agda is paid; Tolvan is also the default PSU of consents. */
const PAYER = '191212121212';
const PAYEE = '198112289874';

export const DOMESTIC = 'handelsbanken-domestic-credit-transfer';
export const GIRO = 'sek-credit-transfer';

/** The accounts to pay from and to, from the sandbox's published test data. */
export function demoAccounts(data: SandboxTestData): DemoAccounts {
  const bbanOf = (psuId: string) => {
    const psu = data.psus.find((candidate) => candidate.psuId === psuId);
    const bban = psu?.accounts.find((account) => account.bban !== undefined)?.bban;
    if (bban === undefined) throw new Error(`the sandbox's test data has no account of PSU ${psuId}`);
    return bban;
  };
  return { debtor: bbanOf(PAYER), creditor: bbanOf(PAYEE) };
}

export function domesticPayment(accounts: DemoAccounts, amount: string) {
  return {
    debtorAccount: { value: accounts.debtor, accountType: 'BBAN' },
    creditorAccount: { value: accounts.creditor, accountType: 'BBAN' },
    instructedAmount: { currency: 'SEK', amount },
    remittanceInformationUnstructured: 'Demo',
  };
}

export const tokenFields = (token: TokenAnswer) =>
  `token_type ${token.token_type}, expires_in ${token.expires_in}` +
  (token.refresh_token === undefined ? '' : ', with a refresh_token');

/** A client-credentials token of the scope. */
export async function clientToken({ client, walk }: DemoContext, scope: string): Promise<string> {
  const answer = await walk.call(
    () => client.clientCredentials(scope),
    200,
    (body) => `scope ${scope}, ${tokenFields(body)}`,
  );
  return answer.body.access_token;
}

/** The redirect flow for a scope: the authorization request's 302 with the code, then the code's exchange. */
export async function redirectAuthorization({ client, walk }: DemoContext, scope: string): Promise<string> {
  const state = `demo-${Date.now()}`;
  const redirected = await walk.call(
    () => client.authorizationRequest(scope, state),
    302,
    (_body, answer) => {
      const query = locationQuery(answer);
      return query.has('code')
        ? `code received, state ${query.get('state') === state ? 'echoed' : 'NOT echoed'}`
        : `error ${query.get('error')}`;
    },
  );
  const query = locationQuery(redirected);
  const code = query.get('code');
  if (code === null) throw new TppError(`authorize ${scope}`, 302, Object.fromEntries(query));
  const exchanged = await walk.call(() => client.exchangeCode(scope, code), 200, tokenFields);
  return exchanged.body.access_token;
}

function locationQuery(answer: HttpAnswer): URLSearchParams {
  const location = answer.headers.get('location');
  return location === null ? new URLSearchParams() : new URL(location).searchParams;
}

/** A domestic payment initiated on the Sweden v2 API: its id. */
export async function initiateDomestic(
  { client, walk, accounts }: DemoContext,
  token: string,
): Promise<string> {
  const answer = await walk.call(
    () =>
      client.initiate(token, {
        path: `/psd2/se/v2/payments/private/single/${DOMESTIC}`,
        body: domesticPayment(accounts, '125.50'),
      }),
    200,
    (body) =>
      `paymentId ${body.paymentId}, transactionStatus ${body.transactionStatus}, ` +
      `scaMethods ${body.scaMethods.map((method) => method.scaMethodType).join(' ')}`,
  );
  return answer.body.paymentId;
}

/** Execute with the PSU's token, then the status with the client-credentials token. */
export async function executeAndRead(
  context: DemoContext,
  paymentId: string,
  psuToken: string,
  token: string,
) {
  const { client, walk } = context;
  const statusFields = (body: { transactionStatus: string; reasonCode?: string }) =>
    `transactionStatus ${body.transactionStatus}${body.reasonCode === undefined ? '' : ` (${body.reasonCode})`}`;
  await walk.call(() => client.execute(DOMESTIC, paymentId, psuToken), 200, statusFields);
  await walk.call(() => client.status(DOMESTIC, paymentId, token, 'SE'), 200, statusFields);
}
