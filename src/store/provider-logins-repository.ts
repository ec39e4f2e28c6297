// The PSU's logins at the bank's OpenID Connect provider: created with the authorization request, sent
// once to the provider, returned once.
import { and, eq } from 'drizzle-orm';
import type { Db } from './database.ts';
import { providerLogins } from './schema.ts';

export type ProviderLoginRow = typeof providerLogins.$inferSelect;

export async function insertProviderLogin(
  db: Db,
  login: { readonly startHash: string; readonly requestHash: string; readonly createdAt: Date },
): Promise<void> {
  await db.insert(providerLogins).values({ ...login, status: 'created' });
}

export async function findProviderLogin(
  db: Db,
  by: { readonly startHash: string } | { readonly stateHash: string },
): Promise<ProviderLoginRow | undefined> {
  const where =
    'startHash' in by
      ? eq(providerLogins.startHash, by.startHash)
      : eq(providerLogins.stateHash, by.stateHash);
  const rows = await db.select().from(providerLogins).where(where).limit(1);
  return rows[0];
}

/** The browser left for the provider; answers false when the start link was used before. */
export async function markProviderLoginSent(
  db: Db,
  startHash: string,
  sent: Pick<ProviderLoginRow, 'stateHash' | 'browserHash' | 'returnUrl' | 'checks'>,
): Promise<boolean> {
  const rows = await db
    .update(providerLogins)
    .set({ ...sent, status: 'sent' })
    .where(and(eq(providerLogins.startHash, startHash), eq(providerLogins.status, 'created')))
    .returning({ startHash: providerLogins.startHash });
  return rows.length === 1;
}

/** The browser came back; answers false when it had come back before (a replayed return). */
export async function markProviderLoginReturned(db: Db, startHash: string): Promise<boolean> {
  const rows = await db
    .update(providerLogins)
    .set({ status: 'returned', checks: null })
    .where(and(eq(providerLogins.startHash, startHash), eq(providerLogins.status, 'sent')))
    .returning({ startHash: providerLogins.startHash });
  return rows.length === 1;
}
