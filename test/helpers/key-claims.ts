// Claims of Idempotency-Keys made directly in the store, for the tests of the statements that record an
// answer under a claim (src/store/idempotency-repository.ts).
import { randomUUID } from 'node:crypto';
import type { StoreDb } from '../../src/store/database.ts';
import { claimKey, type KeyClaim } from '../../src/store/idempotency-repository.ts';

/** A fresh key of the app, claimed now for `operation` with a lease of a minute. */
export async function claimedKey(db: StoreDb, clientId: string, operation = 'initiate'): Promise<KeyClaim> {
  const claim = { clientId, operation, key: randomUUID(), token: randomUUID() };
  const now = new Date();
  const claimed = await claimKey(db, claim, `print ${claim.key}`, {
    now,
    leaseUntil: new Date(now.getTime() + 60_000),
    keptSince: new Date(now.getTime() - 86_400_000),
  });
  if (!claimed) throw new Error('a fresh key was taken');
  return claim;
}
