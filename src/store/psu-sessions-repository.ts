// The PSU's dashboard sessions: found by the hash of the cookie's secret while not idle too long.
import { and, eq, gt, lte } from 'drizzle-orm';
import type { Db } from './database.ts';
import { psuSessions } from './schema.ts';

export type PsuSessionRow = typeof psuSessions.$inferSelect;

export async function insertPsuSession(db: Db, session: PsuSessionRow): Promise<void> {
  await db.insert(psuSessions).values(session);
}

/** The session, if active since `activeSince`; its last activity becomes `now` (one statement). */
export async function touchPsuSession(
  db: Db,
  sessionHash: string,
  activeSince: Date,
  now: Date,
): Promise<PsuSessionRow | undefined> {
  const rows = await db
    .update(psuSessions)
    .set({ lastActivity: now })
    .where(and(eq(psuSessions.sessionHash, sessionHash), gt(psuSessions.lastActivity, activeSince)))
    .returning();
  return rows[0];
}

export async function deletePsuSession(db: Db, sessionHash: string): Promise<void> {
  await db.delete(psuSessions).where(eq(psuSessions.sessionHash, sessionHash));
}

/** Forgets sessions idle since before `activeSince`. */
export async function purgePsuSessions(db: Db, activeSince: Date): Promise<void> {
  await db.delete(psuSessions).where(lte(psuSessions.lastActivity, activeSince));
}
