// The bank's own systems vouch for PSUs and accounts the gateway has never seen; the gateway keeps a
// reference row for each on first sight (ids only, migration 0025), so that every data rule its
// database keeps (a payment belongs to its debtor account and that account's PSU; a code, token,
// consent or session to its PSU) holds without a copy of the bank's customer base. Wraps the bank's
// core banking system (an account it finds, with its owner) and its customer directory (a PSU it
// knows); what was referenced once in this process is not written again.
import type { CoreBanking } from '../ports/core-banking.ts';
import type { PsuDirectory } from '../ports/psu-directory.ts';
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
  const { coreBanking, psuDirectory } = systems;
  return {
    coreBanking: {
      ...coreBanking,
      async findAccount(lookup) {
        const account = await coreBanking.findAccount(lookup);
        if (account !== undefined)
          await once(`account ${account.accountId} ${account.psuId}`, () =>
            referenceAccount(db, account.accountId, account.psuId),
          );
        return account;
      },
    },
    psuDirectory: {
      ...psuDirectory,
      async findPsu(psuId) {
        const psu = await psuDirectory.findPsu(psuId);
        if (psu !== undefined) await once(`psu ${psuId}`, () => referencePsu(db, psuId));
        return psu;
      },
    },
  };
}
