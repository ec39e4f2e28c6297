// PSU credentials (built-in PSU directory) and the authorization requests of the login pages.
import { and, eq } from 'drizzle-orm';
import type { Db } from './database.ts';
import { authRequests, psuCredentials } from './schema.ts';

export type CredentialRow = typeof psuCredentials.$inferSelect;
export type AuthRequestRow = typeof authRequests.$inferSelect;

export async function upsertCredentialIfMissing(db: Db, psuId: string, passwordHash: string): Promise<void> {
  await db.insert(psuCredentials).values({ psuId, passwordHash }).onConflictDoNothing();
}

export async function findCredential(db: Db, psuId: string): Promise<CredentialRow | undefined> {
  const rows = await db.select().from(psuCredentials).where(eq(psuCredentials.psuId, psuId)).limit(1);
  return rows[0];
}

export async function insertAuthRequest(db: Db, request: typeof authRequests.$inferInsert): Promise<void> {
  await db.insert(authRequests).values(request);
}

export async function findAuthRequest(db: Db, requestHash: string): Promise<AuthRequestRow | undefined> {
  const rows = await db.select().from(authRequests).where(eq(authRequests.requestHash, requestHash)).limit(1);
  return rows[0];
}

/** Moves a request on from a step; answers false when it had already left that step (a double submit). */
export async function advanceAuthRequest(
  db: Db,
  requestHash: string,
  from: AuthRequestRow['status'],
  // A new requestHash and csrfHash: the page hands out a new request id and CSRF token (provider login).
  changes: Partial<
    Pick<AuthRequestRow, 'psuId' | 'shownPayment' | 'status' | 'lastActivity' | 'requestHash' | 'csrfHash'>
  >,
): Promise<boolean> {
  const rows = await db
    .update(authRequests)
    .set(changes)
    .where(and(eq(authRequests.requestHash, requestHash), eq(authRequests.status, from)))
    .returning({ requestHash: authRequests.requestHash });
  return rows.length === 1;
}

export async function updateAuthRequest(
  db: Db,
  requestHash: string,
  changes: Partial<Pick<AuthRequestRow, 'psuId' | 'shownPayment' | 'status' | 'lastActivity' | 'csrfHash'>>,
): Promise<void> {
  await db.update(authRequests).set(changes).where(eq(authRequests.requestHash, requestHash));
}
