// raw(work)'s types: what it knows (the data the bench seeds it with, bench/data.ts), a call its routes
// answer, and what it hands to PostgreSQL when a variant keeps its work there: an initiation to keep
// (rawPgInitiations) and the flow's steps (rawPgFlows) instead of the Maps.
import type { IncomingMessage, ServerResponse } from 'node:http';

export interface RawAccount {
  readonly resourceId: string;
  readonly iban: string;
  readonly bban: string;
  readonly currency: string;
  readonly name: string;
  readonly ownerName: string;
  readonly balanceMinor: number;
}

export interface RawBooking {
  readonly transactionId: string;
  readonly bookingDate: string;
  readonly amountMinor: number;
  readonly counterpart: string;
  readonly remittance: string;
}

/** What raw(work) knows: tokens (app and PSU), each PSU's accounts, their bookings. */
export interface RawData {
  /** Token to the PSU it reads for ('' for an app's client-credentials token). */
  readonly tokens: Map<string, string>;
  readonly accountsOf: Map<string, readonly RawAccount[]>;
  readonly byIban: Map<string, RawAccount>;
  readonly history: Map<string, readonly RawBooking[]>;
  /** Payments by id: their status (initiated here, or awaiting authorization at the gateway too). */
  readonly payments: Map<string, string>;
}

export function emptyRawData(): RawData {
  return {
    tokens: new Map(),
    accountsOf: new Map(),
    byIban: new Map(),
    history: new Map(),
    payments: new Map(),
  };
}

/** A payment raw(work) initiated, with its answer, to keep before answering (rawPgInitiations). */
export interface RawInitiation {
  readonly clientId: string;
  readonly requestId: string;
  readonly paymentId: string;
  readonly body: unknown;
  readonly answer: unknown;
}

/** The flow's steps kept in PostgreSQL (rawPgFlows) instead of raw(work)'s Maps. */
export interface RawFlows {
  /** A new single-use code for the app and scope, or undefined when the scope names no payment of the app awaiting authorization. */
  issueCode(clientId: string, scope: string): Promise<string | undefined>;
  /** The code's token (the code used up), or undefined when the code is unknown, used, expired or another app's. */
  exchange(code: string, clientId: string): Promise<string | undefined>;
  /**
   * Executes the payment with the app's PSU token of its scope: its new status ('ACCC', or 'RJCT' when the
   * debtor's balance does not cover it), 'not waiting' when it awaits no execution, 'token' when the
   * token is not valid for it.
   */
  execute(
    paymentId: string,
    token: string,
    clientId: string,
  ): Promise<'ACCC' | 'RJCT' | 'not waiting' | 'token'>;
  /** The payment's status, or undefined when the app has no such payment. */
  status(paymentId: string, clientId: string): Promise<string | undefined>;
}

/** A call past raw(work)'s gates: its body's text, its URL taken apart, and the PSU its token reads for. */
export interface WorkCall {
  readonly request: IncomingMessage;
  readonly response: ServerResponse;
  readonly text: string;
  readonly url: URL;
  readonly path: string;
  readonly parts: readonly string[];
  /** Where the links of an answer point: the Host the call came to. */
  readonly origin: string;
  /** The PSU the token reads for ('' for an app's client-credentials token). */
  readonly psu: string;
}
