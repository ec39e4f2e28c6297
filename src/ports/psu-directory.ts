// The port to the bank's PSU directory: who a PSU is, whether the credentials are right, and the
// accounts and cards the PSU may use. The built-in directory (src/adapters/built-in-psu-directory.ts)
// keeps scrypt hashes of the test PSUs' passwords; a bank plugs in its own.
import type { AccountRecord, Card, CardAccountRecord, Psu } from '../domain/accounts.ts';

export type LoginResult =
  | { readonly ok: true }
  | { readonly ok: false; readonly reason: 'invalid' | 'locked' };

/**
 * What the bank says of its customers: who a PSU is, and what the PSU holds. A bank's core banking
 * system can answer it (CORE_BANKING_URL: src/adapters/http-core-banking/customers.ts) while the
 * passwords of our own login page stay with the built-in directory.
 */
export interface CustomerDirectory {
  findPsu(psuId: string): Promise<Psu | undefined>;
  /** The accounts the PSU holds, in the order the bank shows them. */
  accountsOf(psuId: string): Promise<AccountRecord[]>;
  /** The credit card accounts the PSU holds, in the order the bank shows them. */
  cardAccountsOf(psuId: string): Promise<CardAccountRecord[]>;
  /** The cards that draw on these accounts or card accounts. */
  cardsOf(accountIds: readonly string[]): Promise<Card[]>;
}

export interface PsuDirectory extends CustomerDirectory {
  /**
   * Checks a PSU's credentials. Answers the same for an unknown PSU as for a wrong password. The gateway
   * counts failures itself (per PSU id and client address) and answers a directory's 'locked' as wrong.
   */
  authenticate(psuId: string, password: string, now: Date): Promise<LoginResult>;
}
