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

/** Told of an account the bank names another PSU's while the gateway's rows hold it for an earlier one. */
export type HeldAccount = (accountId: string) => void;

export function referencing(db: StoreDb, systems: Referencing, held: HeldAccount = () => {}): Referencing {
  // Each id with the owner last referenced: an owner the bank changed is written again.
  const seen = new Map<string, string>();
  async function once(key: string, owner: string, write: () => Promise<boolean>): Promise<boolean> {
    if (seen.get(key) === owner) return true;
    if (!(await write())) return false;
    if (seen.size >= REMEMBERED) seen.clear();
    seen.set(key, owner);
    return true;
  }
  const { coreBanking: core, psuDirectory } = systems;
  return {
    coreBanking: {
      async findAccount(lookup) {
        const account = await core.findAccount(lookup);
        if (account === undefined) return undefined;
        const { accountId, psuId } = account;
        if (await once(`account ${accountId}`, psuId, () => referenceAccount(db, accountId, psuId)))
          return account;
        // The earlier owner's payments hold the account's row: no payment of the new owner can be
        // stored from it; it is answered as an account the bank does not have.
        held(accountId);
        return undefined;
      },
      findCardAccount: (cardAccountId) => core.findCardAccount(cardAccountId),
      balances: (accountIds) => core.balances(accountIds),
      statement: (accountId, period) => core.statement(accountId, period),
      availableFunds: (source) => core.availableFunds(source),
      book: (order) => core.book(order),
    },
    psuDirectory: withCustomers(psuDirectory, {
      async findPsu(psuId) {
        const psu = await psuDirectory.findPsu(psuId);
        if (psu !== undefined)
          await once(`psu ${psuId}`, psuId, async () => {
            await referencePsu(db, psuId);
            return true;
          });
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
