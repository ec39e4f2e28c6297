// The outbox's delivery side (issue 41): claiming due notifications for one process at a time, and
// recording each attempt with what it leaves the notification in.
import { sql } from 'drizzle-orm';
import { type Db, rowsOf } from '../database.ts';

/** A notification claimed for one delivery attempt. */
export interface ClaimedNotification {
  readonly notificationId: string;
  readonly appId: string;
  readonly uri: string;
  readonly body: unknown;
  readonly createdAt: Date;
  /** This attempt's number, from 1. */
  readonly attempt: number;
}

export interface ClaimOptions {
  readonly now: Date;
  /** Until when a claim holds: another process takes the notification again after it (a crash). */
  readonly leaseUntil: Date;
  /** The most notifications of one app claimed at once, across every process. */
  readonly perApp: number;
  /** The most claimed by one call. */
  readonly limit: number;
}

/**
 * Claims the due pending notifications, oldest first, keeping each app under `perApp` claims in force.
 * The claims of all processes are taken one at a time (a transaction-scoped advisory lock), so that
 * each sees the others' committed claims when it counts an app's; the lock is held for one short
 * statement. SKIP LOCKED passes over a row an attempt's recording holds.
 */
export async function claimDue(db: Db, options: ClaimOptions): Promise<ClaimedNotification[]> {
  const now = options.now.toISOString();
  return db.transaction(async (trx) => {
    await trx.execute(sql`SELECT pg_advisory_xact_lock(hashtext('notification_claims'))`);
    const rows = rowsOf<Omit<ClaimedNotification, 'createdAt'> & { createdAt: Date | string }>(
      await trx.execute(sql`WITH in_flight AS (
          SELECT app_id, count(*) AS claimed FROM notifications
           WHERE state = 'pending' AND claimed_until > ${now}::timestamptz GROUP BY app_id
        ),
        due AS (
          SELECT notification_id, app_id, next_attempt_at FROM notifications
           WHERE state = 'pending' AND next_attempt_at <= ${now}::timestamptz
             AND (claimed_until IS NULL OR claimed_until <= ${now}::timestamptz)
           ORDER BY next_attempt_at, notification_id LIMIT ${options.limit}
           FOR UPDATE SKIP LOCKED
        ),
        ranked AS (
          SELECT d.notification_id, row_number() OVER (PARTITION BY d.app_id
                   ORDER BY d.next_attempt_at, d.notification_id) + coalesce(f.claimed, 0) AS place
            FROM due d LEFT JOIN in_flight f ON f.app_id = d.app_id
        )
        UPDATE notifications n SET claimed_until = ${options.leaseUntil.toISOString()}::timestamptz
          FROM ranked r
         WHERE n.notification_id = r.notification_id AND r.place <= ${options.perApp}
        RETURNING n.notification_id AS "notificationId", n.app_id AS "appId", n.uri, n.body,
                  n.created_at AS "createdAt", n.attempts + 1 AS attempt`),
    );
    return rows.map((row) => ({
      ...row,
      body: typeof row.body === 'string' ? (JSON.parse(row.body) as unknown) : row.body,
      createdAt: new Date(row.createdAt),
    }));
  });
}

/** What an attempt leaves the notification in. */
export type AttemptOutcome =
  | { readonly state: 'delivered' }
  | { readonly state: 'pending'; readonly nextAttemptAt: Date }
  | { readonly state: 'abandoned' };

export interface AttemptRecord {
  readonly notificationId: string;
  readonly attempt: number;
  readonly at: Date;
  readonly statusCode: number | undefined;
  readonly error: string | undefined;
  readonly durationMs: number;
  readonly outcome: AttemptOutcome;
}

/** Records an attempt and releases the claim, in one statement. */
export async function recordAttempt(db: Db, record: AttemptRecord): Promise<void> {
  const at = record.at.toISOString();
  const next = record.outcome.state === 'pending' ? record.outcome.nextAttemptAt.toISOString() : null;
  await db.execute(sql`WITH attempt AS (
      INSERT INTO notification_attempts (notification_id, attempt, at, status_code, error, duration_ms)
      VALUES (${record.notificationId}, ${record.attempt}, ${at}::timestamptz, ${record.statusCode ?? null}::integer,
              ${record.error ?? null}::text, ${Math.round(record.durationMs)})
      ON CONFLICT DO NOTHING
    )
    UPDATE notifications SET attempts = attempts + 1, state = ${record.outcome.state}, claimed_until = NULL,
        next_attempt_at = coalesce(${next}::timestamptz, next_attempt_at),
        delivered_at = CASE WHEN ${record.outcome.state} = 'delivered' THEN ${at}::timestamptz END
     WHERE notification_id = ${record.notificationId} AND state = 'pending'`);
}
