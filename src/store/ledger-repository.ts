// The ledger of the built-in core banking system: bookings and their entries, account balances.
import { and, desc, eq, gte, inArray, isNull, lt, lte, or, sql } from 'drizzle-orm';
import type { PgInsertValue } from 'drizzle-orm/pg-core';
import type { Db } from './database.ts';
import { accounts, bookings, cardAccounts, ledgerEntries, ledgerOrders } from './schema.ts';

export interface LedgerAccount {
  readonly accountId: string;
  readonly currency: string;
  readonly accountType: string;
  readonly blocked: boolean;
  readonly dailyLimitMinor: number | null;
  readonly openingMinor: number;
  readonly ownerName: string;
  /** The ledger checks this account's rules even where it books without checks (sandbox scenarios). */
  readonly enforceRules: boolean;
}

export interface Entry {
  readonly ledgerAccount: string;
  readonly currency: string;
  readonly amountMinor: number;
}

/** Reads an account and locks it until the transaction ends: bookings from one account go one by one. */
export async function lockLedgerAccount(trx: Db, accountId: string): Promise<LedgerAccount | undefined> {
  const rows = await trx
    .select({
      accountId: accounts.accountId,
      currency: accounts.currency,
      accountType: accounts.accountType,
      blocked: accounts.blocked,
      dailyLimitMinor: accounts.dailyLimitMinor,
      openingMinor: accounts.balanceMinor,
      ownerName: accounts.ownerName,
      enforceRules: accounts.enforceRules,
    })
    .from(accounts)
    .where(eq(accounts.accountId, accountId))
    .limit(1)
    .for('update');
  return rows[0];
}

/** The sum of an account's entries, in minor units. */
export async function entriesSum(db: Db, ledgerAccount: string): Promise<number> {
  const rows = await db
    .select({ sum: sql<string>`coalesce(sum(${ledgerEntries.amountMinor}), 0)::text` })
    .from(ledgerEntries)
    .where(eq(ledgerEntries.ledgerAccount, ledgerAccount));
  return Number(rows[0]!.sum);
}

/** What an account paid out on a day (a positive amount in minor units). */
export async function debitedOn(db: Db, accountId: string, day: string): Promise<number> {
  const rows = await db
    .select({ sum: sql<string>`coalesce(-sum(${ledgerEntries.amountMinor}), 0)::text` })
    .from(ledgerEntries)
    .innerJoin(bookings, eq(bookings.bookingId, ledgerEntries.bookingId))
    .where(
      and(
        eq(ledgerEntries.ledgerAccount, accountId),
        lt(ledgerEntries.amountMinor, 0),
        eq(bookings.bookedOn, day),
      ),
    );
  return Number(rows[0]!.sum);
}

/** A customer account of the bank named by BBAN or IBAN, if there is one. */
export async function findLedgerAccountByNumber(
  db: Db,
  number: string,
): Promise<{ accountId: string; currency: string; ownerName: string } | undefined> {
  const rows = await db
    .select({ accountId: accounts.accountId, currency: accounts.currency, ownerName: accounts.ownerName })
    .from(accounts)
    .where(or(eq(accounts.bban, number), eq(accounts.iban, number)))
    .limit(1);
  return rows[0];
}

/** Books a payment once: answers false when it is booked already. Entries must sum to zero per currency. */
export async function insertBooking(
  trx: Db,
  booking: PgInsertValue<typeof bookings> & { bookingId: string },
  entries: readonly Entry[],
): Promise<boolean> {
  const totals = new Map<string, number>();
  for (const entry of entries)
    totals.set(entry.currency, (totals.get(entry.currency) ?? 0) + entry.amountMinor);
  if ([...totals.values()].some((total) => total !== 0))
    throw new Error(`booking ${booking.bookingId} does not balance`);
  const rows = await trx
    .insert(bookings)
    .values(booking)
    .onConflictDoNothing()
    .returning({ bookingId: bookings.bookingId });
  if (rows.length === 0) return false;
  await trx
    .insert(ledgerEntries)
    .values(entries.map((entry) => ({ ...entry, bookingId: booking.bookingId })));
  return true;
}

/** Per currency, the sum of every entry (zero in a sound ledger). */
export async function entryTotals(db: Db): Promise<Map<string, number>> {
  const rows = await db
    .select({ currency: ledgerEntries.currency, sum: sql<string>`sum(${ledgerEntries.amountMinor})::text` })
    .from(ledgerEntries)
    .groupBy(ledgerEntries.currency);
  return new Map(rows.map((row) => [row.currency, Number(row.sum)]));
}

/**
 * Booked balances now of accounts and card accounts: each one's opening balance and every entry
 * (minor units), in one round trip. Ids the bank does not have are left out.
 */
export async function bookedBalances(db: Db, ids: readonly string[]): Promise<Map<string, number>> {
  if (ids.length === 0) return new Map();
  const wanted = [...ids];
  const openings = db
    .select({ id: accounts.accountId, opening: accounts.balanceMinor })
    .from(accounts)
    .where(inArray(accounts.accountId, wanted))
    .unionAll(
      db
        .select({ id: cardAccounts.cardAccountId, opening: cardAccounts.balanceMinor })
        .from(cardAccounts)
        .where(inArray(cardAccounts.cardAccountId, wanted)),
    )
    .as('openings');
  const rows = await db
    .select({
      id: openings.id,
      balance: sql<string>`(${openings.opening} + coalesce((SELECT sum(e.amount_minor) FROM ledger_entries e WHERE e.ledger_account = ${openings.id}), 0))::text`,
    })
    .from(openings);
  return new Map(rows.map((row) => [row.id, Number(row.balance)]));
}

/** An account's booked balance now: its opening balance and every entry (minor units). */
export async function bookedBalance(db: Db, accountId: string): Promise<number | undefined> {
  return (await bookedBalances(db, [accountId])).get(accountId);
}

/** What the ledger answered to a booking order: booked, or rejected with a reason. */
export type OrderOutcome =
  | { readonly booked: true }
  | { readonly booked: false; readonly reasonCode: string; readonly reason: string };

/** The outcome recorded under an order's idempotency key, if the ledger has answered it. */
export async function findOrderOutcome(db: Db, orderKey: string): Promise<OrderOutcome | undefined> {
  const rows = await db.select().from(ledgerOrders).where(eq(ledgerOrders.orderKey, orderKey)).limit(1);
  const row = rows[0];
  if (row === undefined) return undefined;
  return row.booked ? { booked: true } : { booked: false, reasonCode: row.reasonCode!, reason: row.reason! };
}

/** Records an order's outcome under its key; answers false, recording nothing, when the key has one. */
export async function recordOrderOutcome(
  trx: Db,
  orderKey: string,
  outcome: OrderOutcome,
  at: Date,
): Promise<boolean> {
  const rows = await trx
    .insert(ledgerOrders)
    .values({
      orderKey,
      booked: outcome.booked,
      reasonCode: outcome.booked ? null : outcome.reasonCode,
      reason: outcome.booked ? null : outcome.reason,
      createdAt: at,
    })
    .onConflictDoNothing()
    .returning({ orderKey: ledgerOrders.orderKey });
  return rows.length === 1;
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

/** An account's entries booked from `from` to `to` (ISO dates, inclusive), newest first, at most `limit`. */
export async function statementOf(
  db: Db,
  ledgerAccount: string,
  range: { from: string; to: string; limit: number },
): Promise<StatementLine[]> {
  return db
    .select({
      amountMinor: ledgerEntries.amountMinor,
      currency: ledgerEntries.currency,
      bookedOn: bookings.bookedOn,
      transactionDate: bookings.transactionDate,
      debtorName: bookings.debtorName,
      creditorName: bookings.creditorName,
      remittance: bookings.remittance,
    })
    .from(ledgerEntries)
    .innerJoin(bookings, eq(bookings.bookingId, ledgerEntries.bookingId))
    .where(
      and(
        eq(ledgerEntries.ledgerAccount, ledgerAccount),
        gte(bookings.bookedOn, range.from),
        lte(bookings.bookedOn, range.to),
      ),
    )
    .orderBy(desc(bookings.bookedOn), desc(ledgerEntries.entryId))
    .limit(range.limit);
}

/** Per ledger account, the sum of its entries (minor units), for the accounts asked. */
export async function entriesSums(db: Db, ledgerAccounts: readonly string[]): Promise<Map<string, number>> {
  if (ledgerAccounts.length === 0) return new Map();
  const rows = await db
    .select({
      account: ledgerEntries.ledgerAccount,
      sum: sql<string>`sum(${ledgerEntries.amountMinor})::text`,
    })
    .from(ledgerEntries)
    .where(inArray(ledgerEntries.ledgerAccount, [...ledgerAccounts]))
    .groupBy(ledgerEntries.ledgerAccount);
  return new Map(rows.map((row) => [row.account, Number(row.sum)]));
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
