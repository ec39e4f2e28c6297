// A booking order as the ledger's booking call takes it (store/definitions/ledger_book.sql), and its answer.
import { runStatement, type StoreDb } from '../database.ts';

/** What the ledger answered to a booking order: booked, or rejected with a reason. */
export type OrderOutcome =
  | { readonly booked: true }
  | { readonly booked: false; readonly reasonCode: string; readonly reason: string };

/** A payment of an order as the ledger's booking call takes it (store/definitions/ledger_book.sql). */
export interface LedgerLine {
  readonly paymentId: string;
  readonly debtorAccountId: string;
  /** The instructed amount. */
  readonly currency: string;
  readonly minor: number;
  /** The debit in the debtor account's currency, when it is not the instructed one. */
  readonly debitMinor?: number;
  readonly creditorAccount: string;
  readonly creditorName: string | null;
  readonly withinBank: boolean;
  readonly toOtherBank: boolean;
  readonly remittance: string | null;
  readonly initiatedOn: string;
  /** Check the debtor account's rules (always where the account says so). */
  readonly enforce: boolean;
}

/** The account rules the booking call checks, and what it answers when one refuses. */
export interface LedgerRules {
  readonly notForOtherBanks: string;
  readonly notForPayments: readonly string[];
  readonly refusals: Readonly<
    Record<'blocked' | 'otherBanks' | 'accountType' | 'funds' | 'dailyLimit', OrderOutcome>
  >;
}

/** An order as the booking calls take it: its key, the booking date and its lines. */
export interface LedgerOrder {
  readonly key: string;
  readonly bookingDate: string;
  readonly lines: readonly LedgerLine[];
}

/** The debtor accounts whose debits must be converted first, by id, and their currencies. */
export interface AccountCurrencies {
  readonly accountCurrencies: Readonly<Record<string, string>>;
}

/** The booking call's answer: the outcome, or the debtor accounts whose debits must be converted first. */
export type LedgerAnswer = OrderOutcome | AccountCurrencies;

/**
 * Books an order in one call, atomically: locks, the answer kept under the key, refusals, bookings
 * and entries (store/definitions/ledger_book.sql). Throws when a payment is booked already under another
 * key, or a debtor account does not exist.
 */
export async function bookLedgerOrder(
  db: StoreDb,
  order: LedgerOrder,
  rules: LedgerRules,
  at: Date,
): Promise<LedgerAnswer> {
  const rows = await runStatement<{ answer: LedgerAnswer }>(
    db,
    'ledger_book',
    'SELECT ledger_book($1, $2::date, $3::jsonb, $4::jsonb, $5::timestamptz) AS answer',
    bookingParameters(order, rules, at),
  );
  return rows[0]!.answer;
}

/** The rules as the booking calls take them: the same object every time, so written once. */
const rulesText = new WeakMap<LedgerRules, string>();

export function rulesJson(rules: LedgerRules): string {
  let text = rulesText.get(rules);
  if (text === undefined) {
    text = JSON.stringify(rules);
    rulesText.set(rules, text);
  }
  return text;
}

/** ledger_book's parameters. */
function bookingParameters(order: LedgerOrder, rules: LedgerRules, at: Date): string[] {
  return [order.key, order.bookingDate, JSON.stringify(order.lines), rulesJson(rules), at.toISOString()];
}
