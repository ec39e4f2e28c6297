// The bodies the gateway answers, as a TPP reads them (spec "Resources and their fields", API-NOTES).
// Written for clients on their own, without the server's schemas: the client ships without the server.

/** The error body of every endpoint but OAuth's (API-NOTES "Error bodies"). */
export interface ApiErrorBody {
  readonly httpCode: string;
  readonly httpMessage: string;
  readonly moreInformation: string;
  readonly tppMessages: readonly {
    readonly category: string;
    readonly code: string;
    readonly path?: string;
    readonly text: string;
  }[];
}

/** The error body of the OAuth and decoupled endpoints (RFC 6749). */
export interface OAuthErrorBody {
  readonly error: string;
  readonly error_description?: string;
}

export interface TokenAnswer {
  readonly access_token: string;
  readonly expires_in: number;
  readonly token_type: string;
  /** Account access only. */
  readonly refresh_token?: string;
}

export interface ScaMethod {
  readonly scaMethodType: 'REDIRECT' | 'DECOUPLED' | (string & {});
  readonly _links: { readonly authorization: readonly { href: string; name: string; type: string }[] };
}

export interface InitiationAnswer {
  readonly paymentId: string;
  readonly scaMethods: readonly ScaMethod[];
  readonly transactionStatus: string;
}

export interface CurrencyExchange {
  readonly sourceCurrency: string;
  readonly targetCurrency: string;
  readonly exchangeRate: string;
  readonly quotationDate: string;
}

/** Execute and status of a payment; a rejection (live, sandbox scenarios) says why. */
export interface StatusAnswer {
  readonly paymentId: string;
  readonly transactionStatus: string;
  readonly currencyExchange?: CurrencyExchange;
  readonly reasonCode?: string;
  readonly reason?: string;
}

/** A payment of a signing basket, as initiated: its body plus its product and the TPP's reference. */
export interface BasketPayment {
  readonly paymentProduct: string;
  readonly tppPaymentReference: string;
  readonly [field: string]: unknown;
}

export interface BasketAnswer {
  readonly payments: readonly { readonly paymentId: string; readonly tppPaymentReference: string }[];
  /** Spelled so in the initiation answer (spec "Payment initiation response"). */
  readonly signingBaskedId: string;
}

export interface BasketExecuteAnswer {
  readonly signingBasketId: string;
  readonly transactionStatus: string;
}

interface DecoupledLink {
  readonly href: string;
  readonly hints: { readonly allow: readonly string[] };
}

export interface DecoupledInitAnswer {
  /** Same device only. */
  readonly auto_start_token?: string;
  /** Other device only. */
  readonly qr_code?: string;
  /** Milliseconds to wait before the first token call and between later calls. */
  readonly sleep_time: number;
  readonly _links: { readonly token: DecoupledLink; readonly cancel: DecoupledLink };
}

export interface DecoupledInProgress {
  readonly result: 'IN_PROGRESS';
  readonly sleep_time?: number;
  readonly qr_code?: string;
}

export interface DecoupledComplete extends TokenAnswer {
  readonly result: 'COMPLETE';
}

export interface DecoupledCancelled {
  readonly result: 'USER_CANCEL';
}

/** One answer of the decoupled token URL (its errors are OAuthErrorBody with status 400). */
export type DecoupledPollAnswer = DecoupledInProgress | DecoupledComplete | DecoupledCancelled;

export interface ThirdPartyAnswer {
  /** The TPP id (`SE-FINA-44059`; in the sandbox without a certificate `XX-SANDBOX-########`). */
  readonly clientId: string;
}

export interface AppRegistration {
  readonly name: string;
  readonly description: string;
  readonly oauthRedirectURI: string;
}

export interface SubscriptionAnswer extends AppRegistration {
  /** The app id. */
  readonly clientId: string;
  readonly subscription: {
    readonly subscriptionId: string;
    readonly product: { readonly name: string; readonly version: string; readonly scope: string };
  };
}

export interface ConsentAnswer {
  readonly consentId: string;
  readonly consentStatus: string;
  readonly scaMethods: readonly ScaMethod[];
}

export interface ConsentRequest {
  readonly access: 'ALL_ACCOUNTS';
  /** YYYY-MM-DD, up to 180 days ahead. */
  readonly validUntil?: string;
  readonly frequencyPerDay?: number;
}

export interface ConsentView {
  readonly consentId: string;
  readonly consentStatus: string;
  readonly access: 'ALL_ACCOUNTS';
  readonly validUntil: string;
  readonly frequencyPerDay: number;
}

export interface ConsentStatusAnswer {
  readonly consentStatus: string;
}

export interface Amount {
  /** A decimal string, e.g. "125.50". */
  readonly content: string;
  readonly currency: string;
}

export interface Balance {
  readonly amount: Amount;
  /** `booked`, `available` (version 1) or `AVAILABLE_AMOUNT` (version 2). */
  readonly balanceType: string;
}

export interface Account {
  readonly accountId: string;
  readonly iban?: string;
  readonly bban?: string;
  readonly clearingNumber?: string;
  readonly bic?: string;
  readonly currency: string;
  readonly accountType: string;
  readonly name: string;
  readonly ownerName: string;
  readonly balances?: readonly Balance[];
  readonly _links: { readonly transactions: { readonly href: string } };
}

export interface Transaction {
  readonly amount: Amount;
  readonly bookingDate?: string;
  readonly ledgerDate?: string;
  readonly transactionDate: string;
  readonly valueDate: string;
  readonly creditDebit: 'DEBITED' | 'CREDITED' | (string & {});
  readonly creditorName?: string;
  readonly debtorName?: string;
  readonly remittanceInformation?: string;
  readonly status: 'BOOKED' | 'PENDING' | (string & {});
}

export interface TransactionsAnswer {
  readonly accountId: string;
  readonly transactions: readonly Transaction[];
}

export interface Money {
  readonly currency: string;
  readonly amount: string;
}

export interface CardBalance {
  readonly balanceType: string;
  readonly balanceAmount: Money;
}

export interface CardAccount {
  readonly accountId: string;
  readonly cards: readonly { readonly maskedPan: string; readonly name: string }[];
  readonly currency: string;
  readonly product: string;
  readonly creditLimit: Money;
  readonly balances: readonly CardBalance[];
}

export interface SandboxAccount {
  readonly accountId: string;
  readonly iban?: string;
  readonly bban?: string;
  readonly clearingNumber?: string;
  readonly currency: string;
  readonly country: string;
  readonly name: string;
  readonly ownerName: string;
}

/** GET /sandbox/test-data. */
export interface SandboxTestData {
  /** The seeded sandbox app, where the sandbox names it. */
  readonly app?: { readonly clientId: string; readonly redirectUri: string };
  readonly scenarios: readonly { readonly trigger: string; readonly outcome: string }[];
  readonly psus: readonly {
    readonly psuId: string;
    readonly name: string;
    readonly type: 'private' | 'corporate' | (string & {});
    readonly corporateId?: string;
    readonly accounts: readonly SandboxAccount[];
  }[];
}
