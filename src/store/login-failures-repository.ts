// Failed PSU logins, per PSU id (its SHA-256) and client address, and per PSU id over every address
// (address ''): the counts behind services/authorization/login-throttle.ts.
import { and, eq, inArray, isNull, lte, or, sql } from 'drizzle-orm';
import type { Db } from './database.ts';
import { loginFailures } from './schema.ts';

/** The row that counts a PSU id's failures from every address. */
export const EVERY_ADDRESS = '';

/**
 * Whether the PSU id is locked now from this address, and its failures from every address that are
 * still remembered (none after `forgetMs` without one), in one query.
 */
export async function loginState(
  db: Db,
  psuKey: string,
  address: string,
  forgetMs: number,
  now: Date,
): Promise<{ locked: boolean; failuresEverywhere: number }> {
  const rows = await db
    .select({
      address: loginFailures.address,
      failures: loginFailures.failures,
      lockedUntil: loginFailures.lockedUntil,
      lastFailureAt: loginFailures.lastFailureAt,
    })
    .from(loginFailures)
    .where(and(eq(loginFailures.psuKey, psuKey), inArray(loginFailures.address, [address, EVERY_ADDRESS])));
  const here = rows.find((row) => row.address === address && address !== EVERY_ADDRESS);
  const everywhere = rows.find((row) => row.address === EVERY_ADDRESS);
  const remembered =
    everywhere !== undefined && everywhere.lastFailureAt.getTime() > now.getTime() - forgetMs;
  const lockedUntil = here?.lockedUntil;
  return {
    locked: lockedUntil !== undefined && lockedUntil !== null && lockedUntil > now,
    failuresEverywhere: remembered ? everywhere.failures : 0,
  };
}

/**
 * Counts one failure in a row (one statement, so concurrent failures all count). Failures older than
 * `forgetMs`, or before a lock that has ended, are forgotten; the `max`th locks the row for `lockMs`
 * (without `max`, the row is never locked). Answers whether the row is locked now.
 */
export async function countLoginFailure(
  db: Db,
  row: { psuKey: string; address: string },
  rule: { max?: number; lockMs: number; forgetMs: number },
  now: Date,
): Promise<boolean> {
  const at = (time: Date) => sql`${time.toISOString()}::timestamptz`;
  const lockEnd = new Date(now.getTime() + rule.lockMs);
  // A lock set meanwhile by a concurrent failure stays as it is.
  const running = sql`coalesce(${loginFailures.lockedUntil} > ${at(now)}, false)`;
  const restart = sql`NOT ${running} AND (${loginFailures.lastFailureAt} <= ${at(new Date(now.getTime() - rule.forgetMs))} OR ${loginFailures.lockedUntil} IS NOT NULL)`;
  const next = sql`CASE WHEN ${restart} THEN 1 ELSE ${loginFailures.failures} + 1 END`;
  const rows = await db
    .insert(loginFailures)
    .values({
      psuKey: row.psuKey,
      address: row.address,
      failures: 1,
      lockedUntil: rule.max !== undefined && rule.max <= 1 ? lockEnd : null,
      lastFailureAt: now,
    })
    .onConflictDoUpdate({
      target: [loginFailures.psuKey, loginFailures.address],
      set: {
        failures: next,
        lockedUntil:
          rule.max === undefined
            ? sql`CASE WHEN ${running} THEN ${loginFailures.lockedUntil} END`
            : sql`CASE WHEN ${running} THEN ${loginFailures.lockedUntil} WHEN ${next} >= ${rule.max} THEN ${at(lockEnd)} END`,
        lastFailureAt: now,
      },
    })
    .returning({ lockedUntil: loginFailures.lockedUntil });
  return rows[0]?.lockedUntil !== null && rows[0]?.lockedUntil !== undefined;
}

/** A successful login forgets the failures from its address (not those counted over every address). */
export async function forgetLoginFailures(db: Db, psuKey: string, address: string): Promise<void> {
  await db
    .delete(loginFailures)
    .where(and(eq(loginFailures.psuKey, psuKey), eq(loginFailures.address, address)));
}

/** Rows nobody needs any more: no failure for `forgetMs` and no lock running. */
export async function purgeLoginFailures(db: Db, forgetMs: number, now: Date): Promise<void> {
  await db
    .delete(loginFailures)
    .where(
      and(
        lte(loginFailures.lastFailureAt, new Date(now.getTime() - forgetMs)),
        or(isNull(loginFailures.lockedUntil), lte(loginFailures.lockedUntil, now)),
      ),
    );
}
