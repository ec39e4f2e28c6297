// The bodies the gateway takes and answers, named as a TPP reads them (spec "Resources and their fields",
// API-NOTES), each taken from the generated OpenAPI types (operations.ts): the server's route schemas,
// so that the client cannot drift from what the gateway serves. Where the document says less than a
// TPP may rely on (a decoupled poll's result), the type narrows the generated one, never widens it.
import type { components } from './generated/openapi.ts';
import type { AnswerOf, FormOf, JsonBodyOf } from './operations.ts';

/** The error body of every endpoint but OAuth's (API-NOTES "Error bodies"). */
export type ApiErrorBody = components['schemas']['ApiError'];

/** The error body of the OAuth and decoupled endpoints (RFC 6749). */
export type OAuthErrorBody = components['schemas']['OAuthError'];

/** The token request (`POST /oauth2/token/1.0`), a form. */
export type TokenForm = FormOf<'getToken'>;

export type TokenAnswer = AnswerOf<'getToken'>;

/** A payment initiation's body, of any of the payment APIs (general, Swedish v2, British, Luxembourg). */
export type InitiationRequest =
  | JsonBodyOf<'initiatePayment'>
  | JsonBodyOf<'initiateSeV2Payment'>
  | JsonBodyOf<'initiatePaymentGb'>
  | JsonBodyOf<'initiatePaymentLu'>;

export type InitiationAnswer = AnswerOf<'initiatePayment'>;

export type ScaMethod = InitiationAnswer['scaMethods'][number];

/** Execute and status of a payment; a rejection (live, sandbox scenarios) says why. */
export type StatusAnswer = AnswerOf<'getPaymentStatus'>;

/** Execute of a payment, or of a signing basket (its id in the place of the payment's). */
export type ExecuteAnswer = AnswerOf<'executePayment'>;

export type CurrencyExchange = NonNullable<StatusAnswer['currencyExchange']>;

export type BasketRequest = JsonBodyOf<'initiateBasket'>;

/** A payment of a signing basket, as initiated: its body plus its product and the TPP's reference. */
export type BasketPayment = BasketRequest['payments'][number];

export type BasketAnswer = AnswerOf<'initiateBasket'>;

export type DecoupledStartRequest = JsonBodyOf<'startDecoupledAuthorization'>;

export type DecoupledInitAnswer = AnswerOf<'startDecoupledAuthorization'>;

type DecoupledPoll = AnswerOf<'pollDecoupledToken'>;

export type DecoupledInProgress = DecoupledPoll & { readonly result: 'IN_PROGRESS' };

export type DecoupledComplete = DecoupledPoll &
  TokenAnswer & { readonly result: 'COMPLETE'; readonly access_token: string };

export type DecoupledCancelled = DecoupledPoll & { readonly result: 'USER_CANCEL' };

/** One answer of the decoupled token URL (its errors are OAuthErrorBody with status 400). */
export type DecoupledPollAnswer = DecoupledInProgress | DecoupledComplete | DecoupledCancelled;

/** The TPP id (`SE-FINA-44059`; in the sandbox without a certificate `XX-SANDBOX-########`). */
export type ThirdPartyAnswer = AnswerOf<'enrollThirdParty', 200 | 201>;

export type SubscriptionRequest = JsonBodyOf<'subscribe'>;

export type SubscriptionAnswer = AnswerOf<'subscribe'>;

export type AppRegistration = NonNullable<SubscriptionRequest['app']>;

export type ConsentRequest = JsonBodyOf<'createConsent'>;

/** Consent creation: 201 (200 from gateways before issue 40). */
export type ConsentAnswer = AnswerOf<'createConsent', 200 | 201>;

export type ConsentView = AnswerOf<'getConsent'>;

export type ConsentStatusAnswer = AnswerOf<'getConsentStatus'>;

export type AccountList = AnswerOf<'listAccounts'>;

export type Account = AnswerOf<'getAccount'>;

export type BalancesAnswer = AnswerOf<'getBalances'>;

export type Balance = BalancesAnswer['balances'][number];

export type Amount = Balance['amount'];

export type TransactionsAnswer = AnswerOf<'getTransactions'>;

export type Transaction = TransactionsAnswer['transactions'][number];

export type CardAccountList = AnswerOf<'listCardAccounts'>;

export type CardAccount = AnswerOf<'getCardAccount'>;

export type CardBalancesAnswer = AnswerOf<'getCardAccountBalances'>;

export type CardBalance = CardBalancesAnswer['balances'][number];

export type CardTransactionsAnswer = AnswerOf<'getCardAccountTransactions'>;

/** GET /sandbox/test-data. */
export type SandboxTestData = AnswerOf<'getSandboxTestData'>;

export type SandboxAccount = SandboxTestData['psus'][number]['accounts'][number];

/** GET and POST /sandbox/clock: the app's sandbox time and how far it is ahead of real time. */
export type SandboxClock = AnswerOf<'getSandboxClock'>;

/** GET /psd2/v1/notifications: the app's recent status notifications with their attempts. */
export type NotificationsAnswer = AnswerOf<'listNotifications'>;
