// The ledger of the built-in core banking system: bookings and their entries, account balances.
import { and, eq, lt, or, sql } from 'drizzle-orm';
import type { Db } from './database.ts';
import { accounts, bookings, ledgerEntries } from './schema.ts';

export interface LedgerAccount {
  readonly accountId: string;
  readonly currency: string;
  readonly accountType: string;
  readonly blocked: boolean;
  readonly dailyLimitMinor: number | null;
  readonly openingMinor: number;
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
): Promise<{ accountId: string; currency: string } | undefined> {
  const rows = await db
    .select({ accountId: accounts.accountId, currency: accounts.currency })
    .from(accounts)
    .where(or(eq(accounts.bban, number), eq(accounts.iban, number)))
    .limit(1);
  return rows[0];
}

/** Books a payment once: answers false when it is booked already. Entries must sum to zero per currency. */
export async function insertBooking(
  trx: Db,
  booking: { bookingId: string; paymentId: string; bookedOn: string; createdAt: Date },
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

/** An account's booked balance now: its opening balance and every entry (minor units). */
export async function bookedBalance(db: Db, accountId: string): Promise<number | undefined> {
  const rows = await db
    .select({ opening: accounts.balanceMinor })
    .from(accounts)
    .where(eq(accounts.accountId, accountId))
    .limit(1);
  if (rows[0] === undefined) return undefined;
  return rows[0].opening + (await entriesSum(db, accountId));
}
