// Each sandbox app's clock offset (sandbox_clocks, migration 0039): read with the app, advanced by the
// TPP, removed by a reset. Live never calls these.
import { eq, sql } from 'drizzle-orm';
import type { App } from '../domain/apps.ts';
import { type Db, rowsOf, runStatement, type StoreDb } from './database.ts';
import { sandboxClocks } from './schema.ts';

/** The app of a client id with its clock's offset (0 when it never moved), in one statement. */
export async function findAppWithClock(db: StoreDb, clientId: string): Promise<App | undefined> {
  const rows = await runStatement<App & { clockOffsetMs: number }>(
    db,
    'find_app_with_clock',
    `SELECT a.client_id AS "clientId", a.name, a.description, a.redirect_uri AS "redirectUri", a.seeded,
            a.tpp_id AS "tppId", COALESCE(c.offset_ms, 0)::float8 AS "clockOffsetMs"
       FROM apps a LEFT JOIN sandbox_clocks c ON c.app_id = a.client_id
      WHERE a.client_id = $1`,
    [clientId],
  );
  return rows[0];
}

/** An app's clock offset (0 when it never moved), in `db` (a transaction's too). */
export async function clockOffsetOf(db: Db, appId: string): Promise<number> {
  const rows = await db
    .select({ offsetMs: sandboxClocks.offsetMs })
    .from(sandboxClocks)
    .where(eq(sandboxClocks.appId, appId));
  return rows[0]?.offsetMs ?? 0;
}

/**
 * Advances an app's offset by `ms` unless that would take it beyond `maxMs`: answers the new offset, or
 * undefined (nothing changed). Concurrent advances of one app add up (the row is updated in place).
 */
export async function advanceOffset(
  db: Db,
  appId: string,
  ms: number,
  maxMs: number,
): Promise<number | undefined> {
  const result = await db.execute(sql`INSERT INTO sandbox_clocks (app_id, offset_ms, updated_at)
      SELECT ${appId}, ${ms}::bigint, now() WHERE ${ms}::bigint <= ${maxMs}::bigint
    ON CONFLICT (app_id) DO UPDATE SET offset_ms = sandbox_clocks.offset_ms + EXCLUDED.offset_ms,
                                       updated_at = now()
      WHERE sandbox_clocks.offset_ms + EXCLUDED.offset_ms <= ${maxMs}::bigint
    RETURNING offset_ms::float8 AS "offsetMs"`);
  const rows = rowsOf<{ offsetMs: number }>(result);
  return rows[0]?.offsetMs;
}

/** Every app's clock back to real time (POST /sandbox/reset). */
export async function clearOffsets(trx: Db): Promise<void> {
  await trx.delete(sandboxClocks);
}
