// The bank's own systems vouch for PSUs and accounts the gateway has never seen; the gateway keeps a
// reference row for each on first sight (ids only, migration 0026), so that every data rule its
// database keeps (a payment belongs to its debtor account and that account's PSU; a code, token,
// consent or session to its PSU) holds without a copy of the bank's customer base. Wraps the bank's
// core banking system (an account it finds, with its owner) and its customer directory (a PSU it
// knows); what was referenced once in this process is not written again. The wrappers delegate method
// by method: a system may be a class instance whose methods live on its prototype.
import type { CoreBanking } from '../ports/core-banking.ts';
import type { CustomerDirectory, PsuDirectory } from '../ports/psu-directory.ts';
import { referenceAccount, referencePsu } from '../store/customers-repository.ts';
import type { StoreDb } from '../store/database.ts';

/** Enough to spare the database nearly every repeat; forgotten all at once when full. */
const REMEMBERED = 50_000;

export interface Referencing {
  readonly coreBanking: CoreBanking;
  readonly psuDirectory: PsuDirectory;
}

export function referencing(db: StoreDb, systems: Referencing): Referencing {
  const seen = new Set<string>();
  async function once(key: string, write: () => Promise<void>): Promise<void> {
    if (seen.has(key)) return;
    await write();
    if (seen.size >= REMEMBERED) seen.clear();
    seen.add(key);
  }
  const { coreBanking: core, psuDirectory } = systems;
  const bookRecorded = core.bookRecorded;
  return {
    coreBanking: {
      async findAccount(lookup) {
        const account = await core.findAccount(lookup);
        if (account !== undefined)
          await once(`account ${account.accountId} ${account.psuId}`, () =>
            referenceAccount(db, account.accountId, account.psuId),
          );
        return account;
      },
      findCardAccount: (cardAccountId) => core.findCardAccount(cardAccountId),
      balances: (accountIds) => core.balances(accountIds),
      statement: (accountId, period) => core.statement(accountId, period),
      availableFunds: (source) => core.availableFunds(source),
      book: (order) => core.book(order),
      ...(bookRecorded === undefined
        ? {}
        : { bookRecorded: (order, record) => bookRecorded.call(core, order, record) }),
    },
    psuDirectory: withCustomers(psuDirectory, {
      async findPsu(psuId) {
        const psu = await psuDirectory.findPsu(psuId);
        if (psu !== undefined) await once(`psu ${psuId}`, () => referencePsu(db, psuId));
        return psu;
      },
      accountsOf: (psuId) => psuDirectory.accountsOf(psuId),
      cardAccountsOf: (psuId) => psuDirectory.cardAccountsOf(psuId),
      cardsOf: (accountIds) => psuDirectory.cardsOf(accountIds),
    }),
  };
}

/** A directory's logins with another system's word on the customers (the bank's core banking system). */
export function withCustomers(logins: PsuDirectory, customers: CustomerDirectory): PsuDirectory {
  return {
    authenticate: (psuId, password, now) => logins.authenticate(psuId, password, now),
    findPsu: (psuId) => customers.findPsu(psuId),
    accountsOf: (psuId) => customers.accountsOf(psuId),
    cardAccountsOf: (psuId) => customers.cardAccountsOf(psuId),
    cardsOf: (accountIds) => customers.cardsOf(accountIds),
  };
}
