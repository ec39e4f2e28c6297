// The ledger of the built-in core banking system: bookings and their entries, account balances.
import { eq, isNull, sql } from 'drizzle-orm';
import type { TransactionStatus } from '../domain/payment.ts';
import { batchedRead } from './batched-read.ts';
import { joinedStatement } from './coalescer.ts';
import { type Db, runStatement, type StoreDb } from './database.ts';
import { bookings, ledgerEntries } from './schema.ts';

/** One line of a booking: an amount on a ledger account (a customer's, or clearing:/fx:<currency>). */
export interface Entry {
  readonly ledgerAccount: string;
  readonly currency: string;
  readonly amountMinor: number;
}

/** The sum of an account's entries, in minor units. */
export async function entriesSum(db: Db, ledgerAccount: string): Promise<number> {
  const rows = await db
    .select({ sum: sql<string>`coalesce(sum(${ledgerEntries.amountMinor}), 0)::text` })
    .from(ledgerEntries)
    .where(eq(ledgerEntries.ledgerAccount, ledgerAccount));
  return Number(rows[0]!.sum);
}

/** Per currency, the sum of every entry (zero in a sound ledger). */
export async function entryTotals(db: Db): Promise<Map<string, number>> {
  const rows = await db
    .select({ currency: ledgerEntries.currency, sum: sql<string>`sum(${ledgerEntries.amountMinor})::text` })
    .from(ledgerEntries)
    .groupBy(ledgerEntries.currency);
  return new Map(rows.map((row) => [row.currency, Number(row.sum)]));
}

// The ids as an array too (here and in funds_by_iban): the plan is made once for every batch
// (store/database.ts), for an array of unknown length, and by the array it reads the keys; joined with
// the unnested ids alone, it scanned every account (seen in a bench run's plans).
const balances = batchedRead<readonly string[], { id: string; balance: number }>(
  'booked_balances',
  `SELECT w.item, a.account_id AS id, a.booked_minor::float8 AS balance
     FROM unnest($1::text[], $2::int[]) AS w (id, item) JOIN accounts a ON a.account_id = w.id
    WHERE a.account_id = ANY ($1::text[])
   UNION ALL
   SELECT w.item, c.card_account_id, c.booked_minor::float8
     FROM unnest($1::text[], $2::int[]) AS w (id, item) JOIN card_accounts c ON c.card_account_id = w.id
    WHERE c.card_account_id = ANY ($1::text[])`,
  (lists) => [lists.flat(), lists.flatMap((ids, index) => ids.map(() => index + 1))],
);

/**
 * Booked balances now of accounts and card accounts (minor units), kept by the ledger's triggers
 * (migration 0017); ids the bank does not have are left out. Every balance read and funds check:
 * joined with concurrent reads.
 */
export async function bookedBalances(db: StoreDb, ids: readonly string[]): Promise<Map<string, number>> {
  if (ids.length === 0) return new Map();
  return new Map((await balances(db, ids)).map((row) => [row.id, row.balance]));
}

const fundsByIban = batchedRead<string, { currency: string; balance: number }>(
  'funds_by_iban',
  `SELECT w.item::int AS item, a.currency, a.booked_minor::float8 AS balance
     FROM unnest($1::text[]) WITH ORDINALITY AS w (iban, item) JOIN accounts a ON a.iban = w.iban
    WHERE a.iban = ANY ($1::text[])`,
  (ibans) => [[...ibans]],
);

/**
 * The currency and booked balance now of the account with this IBAN, in one read (every funds check
 * by IBAN: joined with concurrent reads); undefined when the bank has no such account.
 */
export async function bookedFundsByIban(
  db: StoreDb,
  iban: string,
): Promise<{ currency: string; balance: number } | undefined> {
  return (await fundsByIban(db, iban))[0];
}

/** An account's booked balance now: its opening balance and every entry (minor units). */
export async function bookedBalance(db: StoreDb, accountId: string): Promise<number | undefined> {
  return (await bookedBalances(db, [accountId])).get(accountId);
}

/** What the ledger answered to a booking order: booked, or rejected with a reason. */
export type OrderOutcome =
  | { readonly booked: true }
  | { readonly booked: false; readonly reasonCode: string; readonly reason: string };

/** A payment of an order as the ledger's booking call takes it (ledger_book, migration 0017). */
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
 * and entries (ledger_book, migration 0017). Throws when a payment is booked already under another
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

function rulesJson(rules: LedgerRules): string {
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

/**
 * The gateway's record of one payment's execution, kept with the booking when the ledger books it in
 * the gateway's own database (ledger_execute; services/shared/recorded-bookings.ts): the status the
 * payment waits in (not marked for a booking asked before), its status once booked, and the answer to
 * the request that executed it, kept under the app's request id once booked. The bank's port never
 * sees it: it is the gateway's idempotency record, not a word of the bank's.
 */
export interface ExecutionRecord {
  readonly paymentId: string;
  readonly from: TransactionStatus;
  readonly to: TransactionStatus;
  readonly clientId: string;
  readonly requestId: string;
  readonly fingerprint: string;
  readonly statusCode: number;
  readonly body: unknown;
}

/** ledger_execute's answer when it converted nothing: nothing done (not waiting unmarked), or the outcome. */
export type LedgerExecution =
  | { readonly moved: false }
  | (OrderOutcome & { readonly moved: true; readonly answered: boolean });

interface Execution {
  readonly order: LedgerOrder;
  readonly rules: LedgerRules;
  readonly at: Date;
  readonly record: ExecutionRecord;
}

// Executions that arrive together share a statement and a commit (ledger_execute_all, migration 0024);
// two executions of one payment never share one (the later finds the payment moved, as it would alone).
// A statement that fails is retried item by item, so an item that raises fails only its own request.
const executions = joinedStatement('ledger_execute_all', executeAll, {
  key: (item) => item.record.paymentId,
});

async function executeAll(
  db: StoreDb,
  items: readonly Execution[],
): Promise<readonly (LedgerExecution | AccountCurrencies)[]> {
  const { rules } = items[0]!;
  // One rules parameter for the statement: items of other rules are refused here, and run alone.
  if (items.some((item) => item.rules !== rules))
    throw new Error('executions of one statement share their rules');
  const rows = await runStatement<{ answers: (LedgerExecution | AccountCurrencies)[] }>(
    db,
    'ledger_execute_all',
    'SELECT ledger_execute_all($1::jsonb, $2::jsonb) AS answers',
    [
      JSON.stringify(
        items.map(({ order, at, record }) => ({
          key: order.key,
          bookingDate: order.bookingDate,
          lines: order.lines,
          at: at.toISOString(),
          payment: record,
        })),
      ),
      rulesJson(rules),
    ],
  );
  return rows[0]!.answers;
}

/**
 * Books an order of one payment and records its execution in one transaction (ledger_execute, migration
 * 0022, for each item of ledger_execute_all, 0024): the payment locked, the order booked as
 * bookLedgerOrder does, the payment moved (to `record.to`, or RJCT with the reason) and, when booked, the
 * answer recorded under the request id unless it is taken. Nothing is done when the payment is not
 * waiting unmarked in `record.from`, or a debit must be converted first. Concurrent executions share the
 * statement and its commit.
 */
export function executeLedgerOrder(
  db: StoreDb,
  order: LedgerOrder,
  rules: LedgerRules,
  at: Date,
  record: ExecutionRecord,
): Promise<LedgerExecution | AccountCurrencies> {
  return executions(db, { order, rules, at, record });
}

/** One entry of an account with what its booking says: a line of the account's statement. */
export interface StatementLine {
  readonly amountMinor: number;
  readonly currency: string;
  readonly bookedOn: string;
  readonly transactionDate: string;
  readonly debtorName: string | null;
  readonly creditorName: string | null;
  readonly remittance: string | null;
}

interface StatementQuery {
  readonly ledgerAccount: string;
  readonly from: string;
  readonly to: string;
  readonly limit: number;
}

// An entry carries its booking's dates, names and remittance (migration 0020): the lines are one range
// of ledger_entries_statement per account, ordered by the date and the entry's id, which the answer
// does not carry.
const statements = batchedRead<StatementQuery, StatementLine>(
  'statements',
  `SELECT w.item::int AS item, l."amountMinor", l.currency, l."bookedOn", l."transactionDate", l."debtorName",
          l."creditorName", l.remittance
     FROM unnest($1::text[], $2::date[], $3::date[], $4::int[]) WITH ORDINALITY
          AS w (ledger_account, first_day, last_day, most, item),
          LATERAL (SELECT e.amount_minor::float8 AS "amountMinor", e.currency, e.booked_on::text AS "bookedOn",
                          e.transaction_date::text AS "transactionDate", e.debtor_name AS "debtorName",
                          e.creditor_name AS "creditorName", e.remittance, e.booked_on, e.entry_id
                     FROM ledger_entries e
                    WHERE e.ledger_account = w.ledger_account
                      AND e.booked_on BETWEEN w.first_day AND w.last_day
                    ORDER BY e.booked_on DESC, e.entry_id DESC
                    LIMIT w.most) AS l
    ORDER BY w.item, l.booked_on DESC, l.entry_id DESC`,
  (queries) => [
    queries.map((query) => query.ledgerAccount),
    queries.map((query) => query.from),
    queries.map((query) => query.to),
    queries.map((query) => query.limit),
  ],
);

/**
 * An account's entries booked from `from` to `to` (ISO dates, inclusive), newest first, at most
 * `limit` (every transactions read: joined with concurrent reads).
 */
export function statementOf(
  db: StoreDb,
  ledgerAccount: string,
  range: { from: string; to: string; limit: number },
): Promise<StatementLine[]> {
  return statements(db, { ledgerAccount, ...range });
}

/** Whether the ledger holds bookings that are no payment's (the sandbox's history). */
export async function hasHistory(db: Db): Promise<boolean> {
  const rows = await db
    .select({ bookingId: bookings.bookingId })
    .from(bookings)
    .where(isNull(bookings.paymentId))
    .limit(1);
  return rows.length > 0;
}

/** Books history (bookings without a payment) once: a booking already there keeps its entries. */
export async function insertHistory(
  trx: Db,
  history: readonly (Omit<typeof bookings.$inferInsert, 'createdAt'> & {
    bookingId: string;
    entries: readonly Entry[];
  })[],
  createdAt: Date,
): Promise<void> {
  for (let start = 0; start < history.length; start += 500) {
    const chunk = history.slice(start, start + 500);
    const inserted = await trx
      .insert(bookings)
      .values(chunk.map(({ entries: _entries, ...booking }) => ({ ...booking, paymentId: null, createdAt })))
      .onConflictDoNothing()
      .returning({ bookingId: bookings.bookingId });
    const fresh = new Set(inserted.map((row) => row.bookingId));
    const entries = chunk
      .filter((booking) => fresh.has(booking.bookingId))
      .flatMap((booking) => booking.entries.map((entry) => ({ ...entry, bookingId: booking.bookingId })));
    if (entries.length > 0) await trx.insert(ledgerEntries).values(entries);
  }
}
