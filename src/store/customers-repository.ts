// PSUs, their accounts and cards: the bank's customer data (seeded sandbox data by default).
import { and, asc, eq } from 'drizzle-orm';
import type { Db } from './database.ts';
import { accounts, cards, psus } from './schema.ts';

export interface Psu {
  readonly psuId: string;
  readonly name: string;
  readonly customerType: 'private' | 'corporate';
  readonly corporateId: string | null;
}

export interface BankAccount {
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

export interface Card {
  readonly cardId: string;
  readonly accountId: string;
  readonly maskedPan: string;
  readonly name: string;
}

function toAccount(row: typeof accounts.$inferSelect): BankAccount {
  const { position: _position, ...account } = row;
  return account;
}

export async function findPsu(db: Db, psuId: string): Promise<Psu | undefined> {
  const rows = await db.select().from(psus).where(eq(psus.psuId, psuId)).limit(1);
  return rows[0];
}

export async function listPsus(db: Db): Promise<Psu[]> {
  return db.select().from(psus).orderBy(asc(psus.psuId));
}

export async function listAccounts(db: Db): Promise<BankAccount[]> {
  const rows = await db.select().from(accounts).orderBy(asc(accounts.psuId), asc(accounts.position));
  return rows.map(toAccount);
}

export async function findAccountByIban(db: Db, iban: string): Promise<BankAccount | undefined> {
  const rows = await db.select().from(accounts).where(eq(accounts.iban, iban)).limit(1);
  return rows[0] === undefined ? undefined : toAccount(rows[0]);
}

export async function findAccountByBban(
  db: Db,
  country: string,
  bban: string,
): Promise<BankAccount | undefined> {
  const rows = await db
    .select()
    .from(accounts)
    .where(and(eq(accounts.country, country), eq(accounts.bban, bban)))
    .limit(1);
  return rows[0] === undefined ? undefined : toAccount(rows[0]);
}

/** Inserts customers, accounts and cards that are not there yet (by primary key); changes nothing else. */
export async function insertCustomers(
  db: Db,
  data: {
    psus: readonly Psu[];
    accounts: readonly (BankAccount & { position: number })[];
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
