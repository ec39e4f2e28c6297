// The port to the bank's core banking system: where accounts are found and payments are booked.
// The built-in implementation (ledger-core-banking.ts) keeps a double-entry ledger; a bank replaces it.
import type { Payment } from '../domain/payment.ts';
import type { DebtorLookup } from '../domain/payment-rules.ts';
import { type BankAccount, findAccountByBban, findAccountByIban } from '../store/customers-repository.ts';
import type { Db } from '../store/database.ts';

export type ExecutionResult =
  | { readonly status: 'ACCP' | 'ACSC' | 'ACCC' }
  | { readonly status: 'RJCT'; readonly reasonCode: string; readonly reason: string };

export interface CoreBanking {
  /** The bank's account that a payment would be debited from, if the bank has it. */
  findDebtorAccount(db: Db, lookup: DebtorLookup): Promise<BankAccount | undefined>;
  /**
   * Executes a payment inside the caller's transaction, which holds the payment's row lock.
   * `today` is the bank's date; a payment dated later is accepted and waits (ACCP).
   */
  execute(trx: Db, payment: Payment, today: string): Promise<ExecutionResult>;
}

/** The built-in lookup of debtor accounts: the gateway's own customer tables. */
export function findDebtorAccount(db: Db, lookup: DebtorLookup): Promise<BankAccount | undefined> {
  return lookup.kind === 'iban'
    ? findAccountByIban(db, lookup.iban)
    : findAccountByBban(db, lookup.country, lookup.bban);
}
