// The ledger's balances: booked balances of accounts and cards (kept by the ledger's triggers), and sums
// of entries.
import { eq, sql } from 'drizzle-orm';
import { batchedRead } from '../batched-read.ts';
import type { Db, StoreDb } from '../database.ts';
import { ledgerEntries } from '../schema.ts';

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
 * (store/definitions/booked_from_opening.sql, ledger_entries_added.sql); ids the bank does not have
 * are left out. Every balance read and funds check: joined with concurrent reads.
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
