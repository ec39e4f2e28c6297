// PSUs, their accounts and cards: the bank's customer data (seeded sandbox data by default).
import { and, asc, eq, inArray, or, sql } from 'drizzle-orm';
import {
  type AccountRecord,
  type BankAccount,
  type Card,
  type CardAccountRecord,
  maskPan,
  type Psu,
} from '../domain/accounts.ts';
import { batchedRead } from './batched-read.ts';
import type { Db, StoreDb } from './database.ts';
import { accounts, cardAccounts, cards, psus } from './schema.ts';

/**
 * An account as seeded: its display position and opening balance come with it, and for the sandbox's
 * rejection scenarios the ledger's rules (blocked, a daily limit, enforced in the sandbox too).
 */
export type SeedAccount = AccountRecord & {
  readonly position: number;
  readonly balanceMinor: number;
  readonly blocked?: boolean;
  readonly dailyLimitMinor?: number | null;
  readonly enforceRules?: boolean;
};
/** A card account as seeded, with its display position and opening balance (negative: owed). */
export type SeedCardAccount = CardAccountRecord & {
  readonly position: number;
  readonly balanceMinor: number;
};

/** A column only a reference row (migration 0026) leaves empty: the built-in reads never see one. */
function held<T>(value: T | null, what: string): T {
  if (value === null) throw new Error(`${what} of a reference row read as the built-in systems' data`);
  return value;
}

/** An account row as the bank's customer data; position, opening balance, blocks and limits are the ledger's. */
function toRecord(row: typeof accounts.$inferSelect): AccountRecord {
  return {
    accountId: row.accountId,
    psuId: row.psuId,
    country: held(row.country, 'country'),
    currency: held(row.currency, 'currency'),
    iban: row.iban,
    bban: row.bban,
    clearingNumber: row.clearingNumber,
    bic: row.bic,
    accountType: held(row.accountType, 'account type'),
    name: held(row.name, 'name'),
    ownerName: held(row.ownerName, 'owner name'),
  };
}

function toPsu(row: typeof psus.$inferSelect): Psu {
  return {
    psuId: row.psuId,
    name: held(row.name, 'name'),
    customerType: held(row.customerType, 'customer type'),
    corporateId: row.corporateId,
  };
}

const accountsOfPsus = batchedRead<string, AccountRecord>(
  'accounts_of_psus',
  `SELECT w.item::int AS item, a.account_id AS "accountId", a.psu_id AS "psuId", a.country, a.currency,
          a.iban, a.bban, a.clearing_number AS "clearingNumber", a.bic, a.account_type AS "accountType",
          a.name, a.owner_name AS "ownerName"
     FROM unnest($1::text[]) WITH ORDINALITY AS w (psu, item)
     JOIN accounts a ON a.psu_id = w.psu AND NOT a.reference
    ORDER BY w.item, a.position`,
  (psuIds) => [[...psuIds]],
);

/** A PSU's accounts in their display order (every account read: joined with concurrent lookups). */
export function listAccountsOfPsu(db: StoreDb, psuId: string): Promise<AccountRecord[]> {
  return accountsOfPsus(db, psuId);
}

/** The cards drawing on these accounts or card accounts. */
export async function listCardsOf(db: Db, accountIds: readonly string[]): Promise<Card[]> {
  if (accountIds.length === 0) return [];
  const ids = [...accountIds];
  return db
    .select()
    .from(cards)
    .where(or(inArray(cards.accountId, ids), inArray(cards.cardAccountId, ids)))
    .orderBy(asc(cards.cardId));
}

export async function listPsus(db: Db): Promise<Psu[]> {
  const rows = await db.select().from(psus).where(eq(psus.reference, false)).orderBy(asc(psus.psuId));
  return rows.map(toPsu);
}

export async function listAccounts(db: Db): Promise<AccountRecord[]> {
  const rows = await db
    .select()
    .from(accounts)
    .where(eq(accounts.reference, false))
    .orderBy(asc(accounts.psuId), asc(accounts.position));
  return rows.map(toRecord);
}

/** An account with its owner for each item of `unnest` (the arrays $1, ...) named `w (names, item)`, matched by `on`. */
const accountsWithOwner = (unnest: string, names: string, on: string) => `
  SELECT w.item::int AS item, a.account_id AS "accountId", a.psu_id AS "psuId", a.country, a.currency, a.iban,
         a.bban, a.clearing_number AS "clearingNumber", a.bic, a.account_type AS "accountType", a.name,
         a.owner_name AS "ownerName", p.customer_type AS "ownerType", p.corporate_id AS "ownerCorporateId"
    FROM ${unnest} WITH ORDINALITY AS w (${names}, item)
    JOIN accounts a ON ${on} AND NOT a.reference
    JOIN psus p ON p.psu_id = a.psu_id`;

// Every initiation, funds confirmation and account lookup of a payment reads one of these: joined with
// concurrent lookups (a basket's payments look up their accounts together).
const accountsById = batchedRead<string, BankAccount>(
  'accounts_by_id',
  accountsWithOwner('unnest($1::text[])', 'id', 'a.account_id = w.id'),
  (ids) => [[...ids]],
);
const accountsByIban = batchedRead<string, BankAccount>(
  'accounts_by_iban',
  accountsWithOwner('unnest($1::text[])', 'iban', 'a.iban = w.iban'),
  (ibans) => [[...ibans]],
);
const accountsByBban = batchedRead<{ country: string; bban: string }, BankAccount>(
  'accounts_by_bban',
  accountsWithOwner(
    'unnest($1::text[], $2::text[])',
    'country, bban',
    'a.country = w.country AND a.bban = w.bban',
  ),
  (lookups) => [lookups.map((lookup) => lookup.country), lookups.map((lookup) => lookup.bban)],
);

/** An account with its owner, by its id. */
export async function findAccountById(db: StoreDb, accountId: string): Promise<BankAccount | undefined> {
  return (await accountsById(db, accountId))[0];
}

export async function findAccountByIban(db: StoreDb, iban: string): Promise<BankAccount | undefined> {
  return (await accountsByIban(db, iban))[0];
}

export async function findAccountByBban(
  db: StoreDb,
  country: string,
  bban: string,
): Promise<BankAccount | undefined> {
  return (await accountsByBban(db, { country, bban }))[0];
}

/** Inserts customers, accounts and cards that are not there yet (by primary key); changes nothing else. */
export async function insertCustomers(
  db: Db,
  data: {
    psus: readonly Psu[];
    accounts: readonly SeedAccount[];
    cards: readonly Card[];
    cardAccounts?: readonly SeedCardAccount[];
  },
): Promise<void> {
  if (data.psus.length > 0)
    await db
      .insert(psus)
      .values([...data.psus])
      .onConflictDoNothing();
  if (data.accounts.length > 0)
    await db
      .insert(accounts)
      .values([...data.accounts])
      .onConflictDoNothing();
  if (data.cardAccounts !== undefined && data.cardAccounts.length > 0)
    await db
      .insert(cardAccounts)
      .values([...data.cardAccounts])
      .onConflictDoNothing();
  if (data.cards.length > 0)
    await db
      .insert(cards)
      .values([...data.cards])
      .onConflictDoNothing();
}

export async function findPsu(db: Db, psuId: string): Promise<Psu | undefined> {
  const rows = await db
    .select()
    .from(psus)
    .where(and(eq(psus.psuId, psuId), eq(psus.reference, false)))
    .limit(1);
  return rows[0] === undefined ? undefined : toPsu(rows[0]);
}

/** The account of a card, by the card number's first six and last four digits (only masked PANs are kept). */
export async function findAccountOfCard(db: Db, cardNumber: string): Promise<AccountRecord | undefined> {
  const masked = maskPan(cardNumber);
  if (masked === undefined) return undefined;
  const rows = await db
    .select({ account: accounts })
    .from(cards)
    .innerJoin(accounts, eq(accounts.accountId, cards.accountId))
    .where(eq(cards.maskedPan, masked))
    .limit(1);
  return rows[0] === undefined ? undefined : toRecord(rows[0].account);
}

function toCardAccount(row: typeof cardAccounts.$inferSelect): CardAccountRecord {
  return {
    cardAccountId: row.cardAccountId,
    psuId: row.psuId,
    currency: row.currency,
    product: row.product,
    ownerName: row.ownerName,
    creditLimitMinor: row.creditLimitMinor,
  };
}

/** A PSU's card accounts in their display order. */
export async function listCardAccountsOfPsu(db: Db, psuId: string): Promise<CardAccountRecord[]> {
  const rows = await db
    .select()
    .from(cardAccounts)
    .where(eq(cardAccounts.psuId, psuId))
    .orderBy(asc(cardAccounts.position));
  return rows.map(toCardAccount);
}

/** The card account of a credit card, by its number's first six and last four digits. */
export async function findCardAccountOfCard(
  db: Db,
  cardNumber: string,
): Promise<CardAccountRecord | undefined> {
  const masked = maskPan(cardNumber);
  if (masked === undefined) return undefined;
  const rows = await db
    .select({ cardAccount: cardAccounts })
    .from(cards)
    .innerJoin(cardAccounts, eq(cardAccounts.cardAccountId, cards.cardAccountId))
    .where(eq(cards.maskedPan, masked))
    .limit(1);
  return rows[0] === undefined ? undefined : toCardAccount(rows[0].cardAccount);
}

export async function findCardAccount(db: Db, cardAccountId: string): Promise<CardAccountRecord | undefined> {
  const rows = await db
    .select()
    .from(cardAccounts)
    .where(eq(cardAccounts.cardAccountId, cardAccountId))
    .limit(1);
  return rows[0] === undefined ? undefined : toCardAccount(rows[0]);
}

/**
 * A reference row (migration 0026) for a PSU the bank's systems vouched for: its id only. A row already
 * there (a reference, or a customer of the built-in directory) stays as it is.
 */
export async function referencePsu(db: Db, psuId: string): Promise<void> {
  await db.execute(
    sql`INSERT INTO psus (psu_id, reference) VALUES (${psuId}, true) ON CONFLICT (psu_id) DO NOTHING`,
  );
}

/**
 * Reference rows for an account the bank's core banking system confirmed as a PSU's, and for that PSU:
 * their ids only. Rows already there stay as they are, but for a reference row of an account the bank
 * has moved to another PSU: it follows the bank while no payment holds it for its earlier PSU. Answers
 * whether the account's row is now the PSU's (false: the earlier PSU's payments hold it, or a row of
 * the built-in systems names another PSU).
 */
export async function referenceAccount(db: Db, accountId: string, psuId: string): Promise<boolean> {
  await db.execute(
    sql`WITH psu AS (INSERT INTO psus (psu_id, reference) VALUES (${psuId}, true) ON CONFLICT (psu_id) DO NOTHING),
        moved AS (
          UPDATE accounts SET psu_id = ${psuId}
          WHERE account_id = ${accountId} AND reference AND psu_id <> ${psuId}
            AND NOT EXISTS (SELECT 1 FROM payments WHERE debtor_account_id = ${accountId}))
        INSERT INTO accounts (account_id, psu_id, reference) VALUES (${accountId}, ${psuId}, true)
        ON CONFLICT (account_id) DO NOTHING`,
  );
  const rows = await db
    .select({ psuId: accounts.psuId })
    .from(accounts)
    .where(eq(accounts.accountId, accountId))
    .limit(1);
  return rows[0]?.psuId === psuId;
}
