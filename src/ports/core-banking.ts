// The port to the bank's core banking system: its accounts, balances and statements, whether funds are
// available, and the booking of payments. In the domain's words only: no database or transaction
// crosses it, so a bank can plug in a system that shares nothing with the gateway. The built-in
// double-entry ledger (src/adapters/ledger-core-banking.ts) is one implementation; that it can also
// book an execution and record it in the gateway's database in one transaction is a capability of its
// own (services/shared/recorded-bookings.ts), not a word of this port.
import type { BankAccount, CardAccountRecord, StatementLine } from '../domain/accounts.ts';
import type { Money } from '../domain/money.ts';
import type { DebtorLookup } from '../domain/payment-rules.ts';
import type { PaymentProduct } from '../domain/products.ts';

/** An account of the bank by IBAN, by country and BBAN, or by its id. */
export type AccountLookup = DebtorLookup | { readonly kind: 'id'; readonly accountId: string };

/** One payment to book: debit the debtor account, credit the creditor (or the clearing towards another bank). */
export interface BookingLine {
  readonly paymentId: string;
  readonly product: PaymentProduct;
  readonly debtorAccountId: string;
  /** The instructed amount; the system debits the debtor account in its own currency. */
  readonly amount: Money;
  readonly creditorAccount: string;
  readonly creditorName: string | null;
  /** The creditor's account is at the bank (credited directly when the system finds it). */
  readonly withinBank: boolean;
  readonly remittance: string | null;
  /** The TPP's reference of the payment, if it gave one. */
  readonly reference: string | null;
  /** The day the payment was initiated (the transaction date of the statement line). */
  readonly initiatedOn: string;
}

/**
 * What the gateway asks the system to book: one payment, or a signing basket's payments all together
 * or none. The key makes the order idempotent: asked again under the same key, in any process and
 * at any later time, the system answers the first outcome and books nothing more.
 */
export interface BookingOrder {
  readonly key: string;
  /** The bank's date the payments are booked on. */
  readonly bookingDate: string;
  readonly lines: readonly BookingLine[];
}

export type BookingOutcome =
  | { readonly booked: true }
  | { readonly booked: false; readonly reasonCode: string; readonly reason: string };

/** What an amount is checked against: an account by IBAN, or a card (debit: its account; credit: its limit). */
export type FundsSource = { readonly iban: string } | { readonly cardNumber: string };

export interface CoreBanking {
  /** An account of the bank with its owner, if the bank has it. */
  findAccount(lookup: AccountLookup): Promise<BankAccount | undefined>;
  /** A credit card account of the bank, if it has it. */
  findCardAccount(cardAccountId: string): Promise<CardAccountRecord | undefined>;
  /** Booked balances now of accounts and card accounts (minor units; negative on a card: owed). */
  balances(accountIds: readonly string[]): Promise<ReadonlyMap<string, number>>;
  /** Entries booked on an account from `from` to `to` (ISO dates, inclusive), newest first, at most `limit`. */
  statement(
    accountId: string,
    period: { readonly from: string; readonly to: string; readonly limit: number },
  ): Promise<StatementLine[]>;
  /** What can be spent now from an account or a card, in its currency; undefined when the bank has neither. */
  availableFunds(source: FundsSource): Promise<{ currency: string; availableMinor: number } | undefined>;
  /** Books an order, or rejects it with an ISO 20022 reason; idempotent under the order's key. */
  book(order: BookingOrder): Promise<BookingOutcome>;
}
