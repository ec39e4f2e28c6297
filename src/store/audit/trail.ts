// Reading the audit trail out (export) and keeping it no longer than AUDIT_RETENTION_DAYS (issue 39),
// and the key its seals are made with.
import { randomBytes } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { type Db, rowsOf } from '../database.ts';
import { type AuditRow, recordEvents } from './record.ts';

export interface ExportFilter {
  readonly from: Date;
  readonly to: Date;
  readonly tppId?: string | undefined;
  readonly psuId?: string | undefined;
  readonly resource?: string | undefined;
}

/** A record as exported: its seq and time, then its columns as a statement's input names them. */
export type ExportedEvent = { readonly seq: string; readonly at: string } & Omit<AuditRow, 'detail'> & {
    readonly detail: unknown;
  };

/**
 * Where the records of a period can be, as ranges of seq (the records have no time index, migration
 * 0043): in the seals from the first whose last record is at or after `from` to the last whose first
 * is before `to` (a seal made before 0043 has no first time and may hold any), and in every record not
 * yet sealed.
 */
async function periodRanges(db: Db, filter: ExportFilter): Promise<[string, string | null][]> {
  const [bounds] = rowsOf<{ first: string | null; last: string | null; sealed: string }>(
    await db.execute(sql`SELECT
        (SELECT min(from_seq) FROM audit_seals WHERE last_at >= ${filter.from.toISOString()}::timestamptz)::text
          AS first,
        (SELECT max(to_seq) FROM audit_seals WHERE count > 0
           AND (first_at IS NULL OR first_at < ${filter.to.toISOString()}::timestamptz))::text AS last,
        (SELECT COALESCE(max(to_seq), 0) FROM audit_seals)::text AS sealed`),
  );
  const { first, last, sealed } = bounds!;
  const ranges: [string, string | null][] = [];
  if (first !== null && last !== null && BigInt(first) <= BigInt(last)) ranges.push([first, last]);
  ranges.push([String(BigInt(sealed) + 1n), null]);
  return ranges;
}

/** The records from `from` (inclusive) to `to` (exclusive) that match the filter, by seq, in pages. */
export async function* exportEvents(
  db: Db,
  filter: ExportFilter,
  page = 1000,
): AsyncGenerator<ExportedEvent> {
  for (const [first, last] of await periodRanges(db, filter)) {
    let after = String(BigInt(first) - 1n);
    for (;;) {
      const rows = rowsOf<ExportedEvent & { at: Date | string }>(
        await db.execute(sql`SELECT seq::text AS seq, at, event, outcome, resource, tpp_id AS "tppId",
            app_id AS "appId", certificate, psu_id AS "psuId", address, correlation_id AS "correlationId",
            detail
          FROM audit_events
          WHERE seq > ${after}::bigint AND seq <= COALESCE(${last}::bigint, 9223372036854775807)
            AND at >= ${filter.from.toISOString()}::timestamptz AND at < ${filter.to.toISOString()}::timestamptz
            AND (${filter.tppId ?? null}::text IS NULL OR tpp_id = ${filter.tppId ?? null}::text)
            AND (${filter.psuId ?? null}::text IS NULL OR psu_id = ${filter.psuId ?? null}::text)
            AND (${filter.resource ?? null}::text IS NULL OR resource = ${filter.resource ?? null}::text)
          ORDER BY audit_events.seq LIMIT ${page}`),
      );
      for (const row of rows) {
        const detail = typeof row.detail === 'string' ? (JSON.parse(row.detail) as unknown) : row.detail;
        yield { ...row, at: new Date(row.at).toISOString(), detail };
      }
      if (rows.length < page) break;
      after = rows.at(-1)!.seq;
    }
  }
}

/**
 * Deletes the records older than `days` days, whole seals at a time from the oldest (a seal whose last
 * record is that old, with its records), and records the cut as an `audit.retention` event naming the
 * first seq kept, in the same transaction: verify then starts at the oldest seal kept. Answers the
 * records deleted.
 */
export async function applyRetention(db: Db, days: number, now: Date): Promise<number> {
  const cutoff = new Date(now.getTime() - days * 86_400_000).toISOString();
  return db.transaction(async (trx) => {
    const [cut] = rowsOf<{ to: string | null }>(
      await trx.execute(sql`SELECT max(to_seq)::text AS "to" FROM audit_seals
        WHERE to_seq < COALESCE((SELECT min(from_seq) FROM audit_seals
          WHERE last_at IS NOT NULL AND last_at >= ${cutoff}::timestamptz), 'infinity'::numeric)
          AND to_seq < (SELECT max(to_seq) FROM audit_seals)`),
    );
    if (cut?.to == null) return 0;
    const deleted = rowsOf<{ seq: string }>(
      await trx.execute(
        sql`DELETE FROM audit_events WHERE seq <= ${cut.to}::bigint RETURNING seq::text AS seq`,
      ),
    );
    await trx.execute(sql`DELETE FROM audit_seals WHERE to_seq <= ${cut.to}::bigint`);
    await recordEvents(trx, [
      {
        event: 'audit.retention',
        outcome: 'ok',
        resource: 'audit_events',
        detail: { keptFrom: String(BigInt(cut.to) + 1n), deleted: deleted.length, olderThanDays: days },
      },
    ]);
    return deleted.length;
  });
}

/** AUDIT_KEY's bytes; without it (the sandbox only) a key generated once and kept in the database. */
export async function auditKey(db: Db, configured: string | undefined): Promise<Buffer> {
  if (configured !== undefined) return Buffer.from(configured, 'utf8');
  const fresh = randomBytes(32).toString('hex');
  const [row] = rowsOf<{ key: string }>(
    await db.execute(sql`UPDATE audit_sealer SET generated_key = COALESCE(generated_key, ${fresh})
      WHERE id = 1 RETURNING generated_key AS key`),
  );
  if (row === undefined) throw new Error('audit_sealer has no row: the database is not migrated');
  return Buffer.from(row.key, 'utf8');
}
