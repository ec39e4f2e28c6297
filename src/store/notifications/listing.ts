// An app's recent notifications with their attempts (GET /psd2/v1/notifications).
import { sql } from 'drizzle-orm';
import type { Db } from '../database.ts';

export interface NotificationAttemptRow {
  readonly attempt: number;
  readonly at: string;
  readonly statusCode: number | null;
  readonly error: string | null;
  readonly durationMs: number;
}

export interface NotificationRow {
  readonly notificationId: string;
  readonly resourceType: 'payment' | 'basket' | 'consent';
  readonly resourceId: string;
  readonly uri: string;
  readonly body: Record<string, unknown>;
  readonly state: 'pending' | 'delivered' | 'abandoned';
  readonly createdAt: string;
  readonly deliveredAt: string | null;
  readonly nextAttemptAt: string | null;
  readonly attempts: readonly NotificationAttemptRow[];
}

const parsed = <T>(value: unknown): T => (typeof value === 'string' ? JSON.parse(value) : value) as T;

/** The app's `limit` newest notifications, newest first, each with its attempts in order. */
export async function listNotifications(db: Db, appId: string, limit: number): Promise<NotificationRow[]> {
  const result = (await db.execute(sql`SELECT n.notification_id AS "notificationId",
        n.resource_type AS "resourceType", n.resource_id AS "resourceId", n.uri, n.body, n.state,
        to_char(n.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS "createdAt",
        to_char(n.delivered_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS "deliveredAt",
        CASE WHEN n.state = 'pending'
             THEN to_char(n.next_attempt_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') END AS "nextAttemptAt",
        coalesce((SELECT jsonb_agg(jsonb_build_object('attempt', a.attempt,
                   'at', to_char(a.at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
                   'statusCode', a.status_code, 'error', a.error, 'durationMs', a.duration_ms) ORDER BY a.attempt)
                    FROM notification_attempts a WHERE a.notification_id = n.notification_id), '[]'::jsonb) AS attempts
      FROM notifications n WHERE n.app_id = ${appId}
     ORDER BY n.created_at DESC, n.notification_id DESC LIMIT ${limit}`)) as { rows: NotificationRow[] };
  return result.rows.map((row) => ({
    ...row,
    body: parsed<Record<string, unknown>>(row.body),
    attempts: parsed<NotificationAttemptRow[]>(row.attempts),
  }));
}
