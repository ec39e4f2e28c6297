// The port to the bank's PSU directory: who a PSU is, whether the credentials are right, and the
// accounts and cards the PSU may use. The built-in directory (src/adapters/built-in-psu-directory.ts)
// keeps scrypt hashes of the test PSUs' passwords; a bank plugs in its own.
import type { AccountRecord, Card, CardAccountRecord, Psu } from '../domain/accounts.ts';

export type LoginResult =
  | { readonly ok: true }
  | { readonly ok: false; readonly reason: 'invalid' | 'locked' };

export interface PsuDirectory {
  /**
   * Checks a PSU's credentials. Answers the same for an unknown PSU as for a wrong password. The gateway
   * counts failures itself (per PSU id and client address) and answers a directory's 'locked' as wrong.
   */
  authenticate(psuId: string, password: string, now: Date): Promise<LoginResult>;
  findPsu(psuId: string): Promise<Psu | undefined>;
  /** The accounts the PSU holds, in the order the bank shows them. */
  accountsOf(psuId: string): Promise<AccountRecord[]>;
  /** The credit card accounts the PSU holds, in the order the bank shows them. */
  cardAccountsOf(psuId: string): Promise<CardAccountRecord[]>;
  /** The cards that draw on these accounts or card accounts. */
  cardsOf(accountIds: readonly string[]): Promise<Card[]>;
}
