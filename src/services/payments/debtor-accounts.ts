// The account a payment would be debited from, as initiation needs it: recently found ones come from
// memory (who owns an account, its currency and type never change; an unknown account is asked again).
import type { BankAccount } from '../../domain/accounts.ts';
import type { DebtorLookup } from '../../domain/payment-rules.ts';
import type { ServiceContext } from '../shared/context.ts';

export async function debtorAccountOf(
  context: ServiceContext,
  lookup: DebtorLookup,
): Promise<BankAccount | undefined> {
  const key = lookup.kind === 'iban' ? lookup.iban : `${lookup.country} ${lookup.bban}`;
  const cached = context.caches.debtorAccounts.get(key);
  if (cached !== undefined) return cached;
  const account = await context.coreBanking.findAccount(lookup);
  if (account !== undefined) context.caches.debtorAccounts.set(key, account);
  return account;
}
