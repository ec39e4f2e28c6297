// The PSU's dashboard sessions: found by the hash of the cookie's secret while not idle too long; and
// its logins at the bank's OpenID Connect provider, each taken once.
import { and, eq, gt, lte } from 'drizzle-orm';
import type { Db } from './database.ts';
import { psuDashboardLogins, psuSessions } from './schema.ts';

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

export async function insertDashboardLogin(
  db: Db,
  login: typeof psuDashboardLogins.$inferInsert,
): Promise<void> {
  await db.insert(psuDashboardLogins).values(login);
}

/**
 * Takes a login at the provider by its state, once (it is deleted), for the browser that left with it
 * only (another browser cannot spend it); undefined when unknown, taken or another browser's.
 */
export async function takeDashboardLogin(
  db: Db,
  stateHash: string,
  browserHash: string,
): Promise<typeof psuDashboardLogins.$inferSelect | undefined> {
  const rows = await db
    .delete(psuDashboardLogins)
    .where(and(eq(psuDashboardLogins.stateHash, stateHash), eq(psuDashboardLogins.browserHash, browserHash)))
    .returning();
  return rows[0];
}

/** Forgets logins at the provider begun before `since` (the browser never came back). */
export async function purgeDashboardLogins(db: Db, since: Date): Promise<void> {
  await db.delete(psuDashboardLogins).where(lte(psuDashboardLogins.createdAt, since));
}
