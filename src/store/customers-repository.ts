// PSUs, their accounts and cards: the bank's customer data (seeded sandbox data by default).
import { asc, eq, inArray } from 'drizzle-orm';
import { type Db, runStatement } from './database.ts';
import { accounts, cardAccounts, cards, psus } from './schema.ts';

export interface Psu {
  readonly psuId: string;
  readonly name: string;
  readonly customerType: 'private' | 'corporate';
  readonly corporateId: string | null;
}

/** An account as stored. */
export interface AccountRecord {
  readonly accountId: string;
  readonly psuId: string;
  readonly country: string;
  readonly currency: string;
  readonly iban: string | null;
  readonly bban: string | null;
  readonly clearingNumber: string | null;
  readonly bic: string | null;
  readonly accountType: string;
  readonly name: string;
  readonly ownerName: string;
}

/** An account with what the payment rules need to know of its owner. */
export interface BankAccount extends AccountRecord {
  readonly ownerType: 'private' | 'corporate';
  readonly ownerCorporateId: string | null;
}

/** A card draws on an account (debit card) or on a card account (credit card), never both. */
export interface Card {
  readonly cardId: string;
  readonly accountId: string | null;
  readonly cardAccountId: string | null;
  readonly maskedPan: string;
  readonly name: string;
}

/** A credit card account: a ledger account of its own, with a credit limit. */
export interface CardAccountRecord {
  readonly cardAccountId: string;
  readonly psuId: string;
  readonly currency: string;
  readonly product: string;
  readonly ownerName: string;
  readonly creditLimitMinor: number;
  /** The opening balance (negative: owed to the bank); the balance adds the ledger's entries. */
  readonly balanceMinor: number;
  readonly position: number;
}

function toRecord(row: typeof accounts.$inferSelect): AccountRecord {
  const { position: _position, balanceMinor: _balance, ...account } = row;
  return account;
}

/** An account with its balance in minor units of its currency. */
export interface AccountWithBalance extends AccountRecord {
  readonly balanceMinor: number;
}

/** A PSU's accounts in their display order, with balances. */
export async function listAccountsOfPsu(db: Db, psuId: string): Promise<AccountWithBalance[]> {
  const rows = await db
    .select()
    .from(accounts)
    .where(eq(accounts.psuId, psuId))
    .orderBy(asc(accounts.position));
  return rows.map((row) => ({ ...toRecord(row), balanceMinor: row.balanceMinor }));
}

export async function listCardsOfAccounts(db: Db, accountIds: readonly string[]): Promise<Card[]> {
  if (accountIds.length === 0) return [];
  return db
    .select()
    .from(cards)
    .where(inArray(cards.accountId, [...accountIds]))
    .orderBy(asc(cards.cardId));
}

export async function listPsus(db: Db): Promise<Psu[]> {
  return db.select().from(psus).orderBy(asc(psus.psuId));
}

export async function listAccounts(db: Db): Promise<AccountRecord[]> {
  const rows = await db.select().from(accounts).orderBy(asc(accounts.psuId), asc(accounts.position));
  return rows.map(toRecord);
}

const ACCOUNT_WITH_OWNER = `
  SELECT a.account_id AS "accountId", a.psu_id AS "psuId", a.country, a.currency, a.iban, a.bban,
         a.clearing_number AS "clearingNumber", a.bic, a.account_type AS "accountType", a.name,
         a.owner_name AS "ownerName", p.customer_type AS "ownerType", p.corporate_id AS "ownerCorporateId"
    FROM accounts a JOIN psus p ON p.psu_id = a.psu_id`;

export async function findAccountByIban(db: Db, iban: string): Promise<BankAccount | undefined> {
  const rows = await runStatement<BankAccount>(
    db,
    'account_by_iban',
    `${ACCOUNT_WITH_OWNER} WHERE a.iban = $1`,
    [iban],
  );
  return rows[0];
}

export async function findAccountByBban(
  db: Db,
  country: string,
  bban: string,
): Promise<BankAccount | undefined> {
  const rows = await runStatement<BankAccount>(
    db,
    'account_by_bban',
    `${ACCOUNT_WITH_OWNER} WHERE a.country = $1 AND a.bban = $2`,
    [country, bban],
  );
  return rows[0];
}

/** Inserts customers, accounts and cards that are not there yet (by primary key); changes nothing else. */
export async function insertCustomers(
  db: Db,
  data: {
    psus: readonly Psu[];
    accounts: readonly (AccountRecord & { position: number; balanceMinor: number })[];
    cards: readonly Card[];
    cardAccounts?: readonly CardAccountRecord[];
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

export async function findAccountById(db: Db, accountId: string): Promise<AccountRecord | undefined> {
  const rows = await db.select().from(accounts).where(eq(accounts.accountId, accountId)).limit(1);
  return rows[0] === undefined ? undefined : toRecord(rows[0]);
}

export async function findPsu(db: Db, psuId: string): Promise<Psu | undefined> {
  const rows = await db.select().from(psus).where(eq(psus.psuId, psuId)).limit(1);
  return rows[0];
}

/** A card number as the bank keeps it: first six and last four digits; undefined when it is no card number. */
function maskPan(cardNumber: string): string | undefined {
  const digits = cardNumber.replace(/[\s-]/g, '');
  if (!/^\d{12,19}$/.test(digits)) return undefined;
  return `${digits.slice(0, 6)}******${digits.slice(-4)}`;
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

/** A PSU's card accounts in their display order. */
export async function listCardAccountsOfPsu(db: Db, psuId: string): Promise<CardAccountRecord[]> {
  return db
    .select()
    .from(cardAccounts)
    .where(eq(cardAccounts.psuId, psuId))
    .orderBy(asc(cardAccounts.position));
}

/** The cards of card accounts. */
export async function listCardsOfCardAccounts(db: Db, cardAccountIds: readonly string[]): Promise<Card[]> {
  if (cardAccountIds.length === 0) return [];
  return db
    .select()
    .from(cards)
    .where(inArray(cards.cardAccountId, [...cardAccountIds]))
    .orderBy(asc(cards.cardId));
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
  return rows[0]?.cardAccount;
}

export async function cardAccountExists(db: Db, cardAccountId: string): Promise<boolean> {
  const rows = await db
    .select({ id: cardAccounts.cardAccountId })
    .from(cardAccounts)
    .where(eq(cardAccounts.cardAccountId, cardAccountId))
    .limit(1);
  return rows.length === 1;
}
