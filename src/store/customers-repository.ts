// PSUs, their accounts and cards: the bank's customer data (seeded sandbox data by default).
import { and, asc, eq, sql } from 'drizzle-orm';
import type { Db } from './database.ts';
import { preparedFor } from './prepared.ts';
import { accounts, cards, psus } from './schema.ts';

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

export interface Card {
  readonly cardId: string;
  readonly accountId: string;
  readonly maskedPan: string;
  readonly name: string;
}

function toRecord(row: typeof accounts.$inferSelect): AccountRecord {
  const { position: _position, ...account } = row;
  return account;
}

const withOwner = {
  account: accounts,
  ownerType: psus.customerType,
  ownerCorporateId: psus.corporateId,
};

function toAccount(row: {
  account: typeof accounts.$inferSelect;
  ownerType: 'private' | 'corporate';
  ownerCorporateId: string | null;
}): BankAccount {
  return { ...toRecord(row.account), ownerType: row.ownerType, ownerCorporateId: row.ownerCorporateId };
}

export async function listPsus(db: Db): Promise<Psu[]> {
  return db.select().from(psus).orderBy(asc(psus.psuId));
}

export async function listAccounts(db: Db): Promise<AccountRecord[]> {
  const rows = await db.select().from(accounts).orderBy(asc(accounts.psuId), asc(accounts.position));
  return rows.map(toRecord);
}

function accountWithOwner(db: Db) {
  return db.select(withOwner).from(accounts).innerJoin(psus, eq(psus.psuId, accounts.psuId));
}

const byIban = preparedFor((db) =>
  accountWithOwner(db)
    .where(eq(accounts.iban, sql.placeholder('iban')))
    .limit(1)
    .prepare('account_by_iban'),
);

const byBban = preparedFor((db) =>
  accountWithOwner(db)
    .where(and(eq(accounts.country, sql.placeholder('country')), eq(accounts.bban, sql.placeholder('bban'))))
    .limit(1)
    .prepare('account_by_bban'),
);

export async function findAccountByIban(db: Db, iban: string): Promise<BankAccount | undefined> {
  const rows = await byIban(db).execute({ iban });
  return rows[0] === undefined ? undefined : toAccount(rows[0]);
}

export async function findAccountByBban(
  db: Db,
  country: string,
  bban: string,
): Promise<BankAccount | undefined> {
  const rows = await byBban(db).execute({ country, bban });
  return rows[0] === undefined ? undefined : toAccount(rows[0]);
}

/** Inserts customers, accounts and cards that are not there yet (by primary key); changes nothing else. */
export async function insertCustomers(
  db: Db,
  data: {
    psus: readonly Psu[];
    accounts: readonly (AccountRecord & { position: number })[];
    cards: readonly Card[];
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
  if (data.cards.length > 0)
    await db
      .insert(cards)
      .values([...data.cards])
      .onConflictDoNothing();
}
