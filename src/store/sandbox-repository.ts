// Restoring the sandbox (POST /sandbox/reset): everything TPPs did goes, the customers' data comes back.
import { ne, sql } from 'drizzle-orm';
import type { SeedAccount } from './customers-repository.ts';
import type { Db } from './database.ts';
import { clearOffsets } from './sandbox-clock-repository.ts';
import {
  accessTokens,
  accounts,
  authCodes,
  authRequests,
  bookings,
  cardAccounts,
  cards,
  consents,
  consentUsage,
  decoupledSessions,
  eidOrders,
  idempotencyKeys,
  ledgerEntries,
  ledgerOrders,
  loginFailures,
  payments,
  refreshTokens,
  signingBaskets,
} from './schema.ts';

/**
 * Deletes every payment, basket, booking (and the ledger's answers to orders), consent and PSU authorization (codes, PSU tokens, refresh
 * tokens, login and e-ID sessions), every recorded answer to a TPP-Request-ID, and the cards and card
 * accounts; unlocks PSU logins; sets every app's sandbox clock back to real time. Apps and
 * client-credentials tokens stay: a TPP's setup survives.
 */
export async function clearSandboxActivity(trx: Db): Promise<void> {
  // Children before parents: the foreign keys hold throughout.
  await trx.delete(ledgerEntries);
  await trx.delete(bookings);
  await trx.delete(ledgerOrders);
  await trx.delete(consentUsage);
  await trx.delete(consents);
  await trx.delete(idempotencyKeys);
  await trx.delete(decoupledSessions);
  await trx.delete(eidOrders);
  await trx.delete(authRequests);
  await trx.delete(refreshTokens);
  await trx.delete(accessTokens).where(ne(accessTokens.kind, 'client_credentials'));
  await trx.delete(authCodes);
  await trx.delete(payments);
  await trx.delete(signingBaskets);
  await trx.delete(cards);
  await trx.delete(cardAccounts);
  await trx.delete(loginFailures);
  // Every app's sandbox clock back on real time.
  await clearOffsets(trx);
}

/** Puts the accounts back as seeded: balance, blocked flag, daily limit and whether rules are enforced. */
export async function restoreAccounts(trx: Db, seeded: readonly SeedAccount[]): Promise<void> {
  for (const account of seeded) {
    await trx
      .update(accounts)
      .set({
        balanceMinor: account.balanceMinor,
        blocked: account.blocked ?? false,
        dailyLimitMinor: account.dailyLimitMinor ?? null,
        enforceRules: account.enforceRules ?? false,
      })
      .where(sql`${accounts.accountId} = ${account.accountId}`);
  }
}
