// Tamper evidence without touching a record twice (issue 39, docs/decisions.md). Records take a seq
// and their transaction's id; a sealer (one at a time: the row of audit_sealer, locked FOR UPDATE)
// notes the last seq handed out and the first transaction id not yet given (pending_seq and
// pending_xmax), and once every transaction below that id has finished (none can still add a record at
// or below pending_seq) it seals the range from the last seal up to pending_seq: the seq and a digest
// of every record in it (formats.ts), and an HMAC-SHA256 (AUDIT_KEY) over them chained with the
// previous seal's, with the range's first and last time (export finds a period's records by them). A
// seq the range lacks (a rolled-back transaction's) is simply not listed; from format 3 a range that
// lacks none lists no seq at all. Verify (verify.ts) recomputes the chain and compares each sealed list
// with the records there now.
import { sql } from 'drizzle-orm';
import { type Db, rowsOf } from '../database.ts';
import {
  digestSql,
  FIXED_SETTINGS,
  macOf,
  macSeqs,
  needsFixedSettings,
  SEAL_FORMAT,
  timesSql,
} from './formats.ts';

/**
 * The most records one seal takes. On PGlite a turn holds the process's one thread: about 2.5 ms of
 * CPU whatever it seals (its seven statements) and 3.2 µs a record, so 15 ms at most on a 2-core
 * machine; a limit of 1,000 spent a quarter of the sealing on those fixed costs under load
 * (docs/decisions.md, "Issue 39: seals of up to 4,000 records").
 */
export const SEAL_LIMIT = 4_000;

interface SealerState {
  readonly pending: string | null;
  readonly ready: boolean;
  readonly lastTo: string;
  readonly lastMac: string;
}

/**
 * One turn of the sealer: seals the pending range if its transactions have all finished, and notes the
 * next one. Answers the records sealed, and whether records wait for a later turn.
 */
export async function sealTurn(
  db: Db,
  key: Buffer,
  format = SEAL_FORMAT,
): Promise<{ sealed: number; waiting: boolean; more: boolean }> {
  digestSql(format);
  return db.transaction(async (trx) => {
    const [state] = rowsOf<SealerState>(
      await trx.execute(sql`SELECT s.pending_seq::text AS pending,
          COALESCE(pg_snapshot_xmin(pg_current_snapshot()) >= s.pending_xmax, false) AS ready,
          COALESCE(l.to_seq, 0)::text AS "lastTo", COALESCE(encode(l.mac, 'hex'), '') AS "lastMac"
          ${needsFixedSettings(format) ? sql`, ${FIXED_SETTINGS}` : sql``}
        FROM audit_sealer s
        LEFT JOIN LATERAL (SELECT to_seq, mac FROM audit_seals ORDER BY from_seq DESC LIMIT 1) l ON true
        WHERE s.id = 1 FOR UPDATE OF s SKIP LOCKED`),
    );
    // Another sealer holds the row (or a connection that died holding it, until the server notices):
    // this turn leaves the sealing to it rather than wait.
    if (state === undefined) return { sealed: 0, waiting: true, more: false };
    let sealed = 0;
    if (state.pending !== null && !state.ready) return { sealed, waiting: true, more: false };
    if (state.pending !== null && BigInt(state.pending) > BigInt(state.lastTo)) {
      // The digests are made and joined by the database: one row comes back, not one per record. The
      // range is put in order as digests (40 bytes a row), not as whole records that the aggregate's
      // own ORDER BY would sort: 3.0 against 3.7 µs a record on PGlite.
      const from = BigInt(state.lastTo) + 1n;
      const limit = from + BigInt(SEAL_LIMIT) - 1n;
      const to = String(limit < BigInt(state.pending) ? limit : BigInt(state.pending));
      const inRange = sql`FROM audit_events WHERE seq >= ${String(from)}::bigint AND seq <= ${to}::bigint`;
      const [range] = rowsOf<{
        count: number;
        digests: string;
        firstAt: string | null;
        lastAt: string | null;
        times: string;
      }>(
        await trx.execute(sql`SELECT count(*)::int AS count,
            COALESCE(encode(string_agg(digest, ''::bytea ORDER BY seq), 'hex'), '') AS digests,
            min(at)::text AS "firstAt", max(at)::text AS "lastAt", ${sql.raw(timesSql('min(at)', 'max(at)'))} AS times
          FROM (SELECT seq, at, ${sql.raw(digestSql(format))} AS digest ${inRange} ORDER BY seq) r`),
      );
      const { count, digests, firstAt, lastAt, times } = range!;
      // Seqs are unique: as many records as numbers lack none. Only a range with a gap lists its seqs.
      const all = count === Number(BigInt(to) - from + 1n);
      let seqs = '';
      if (format < 3 || !all) {
        const [listed] = rowsOf<{ seqs: string }>(
          await trx.execute(
            sql`SELECT COALESCE(array_to_string(array_agg(seq ORDER BY seq), ','), '') AS seqs ${inRange}`,
          ),
        );
        seqs = listed!.seqs;
      }
      const mac = macOf(key, format, {
        prevMac: state.lastMac,
        from: String(from),
        to,
        seqs: macSeqs(format, seqs, all),
        digests,
        times,
      });
      await trx.execute(sql`INSERT INTO audit_seals (from_seq, to_seq, count, seqs, digests, first_at, last_at, prev_mac,
          mac, format)
        VALUES (${String(from)}::bigint, ${to}::bigint, ${count}, ${`{${seqs}}`}::bigint[],
                decode(${digests}, 'hex'), ${firstAt}::timestamptz, ${lastAt}::timestamptz,
                CASE WHEN ${state.lastMac} = '' THEN NULL ELSE decode(${state.lastMac}, 'hex') END,
                decode(${mac}, 'hex'), ${format})`);
      // Records of the noted range are left: the next turn seals them, with nothing new to wait for.
      if (to !== state.pending) return { sealed: count, waiting: true, more: true };
      sealed = count;
    }
    // The last number first, the snapshot's xmax in a later statement (a snapshot of its own): read in
    // one, a transaction that began after the snapshot could take a number before last_value was read,
    // and the range would be sealed without waiting for it (its record then "inserted out of order").
    const [handedOut] = rowsOf<{ last: string }>(
      await trx.execute(
        sql`SELECT (CASE WHEN is_called THEN last_value ELSE 0 END)::text AS last FROM audit_events_seq_seq`,
      ),
    );
    const [next] = rowsOf<{ pending: string | null }>(
      await trx.execute(sql`UPDATE audit_sealer SET pending_seq = ${handedOut?.last ?? '0'}::bigint,
          pending_xmax = pg_snapshot_xmax(pg_current_snapshot())
        WHERE id = 1 RETURNING pending_seq::text AS pending`),
    );
    const waiting = next?.pending != null && BigInt(next.pending) > BigInt(state.pending ?? state.lastTo);
    return { sealed, waiting, more: false };
  });
}

/**
 * Seals everything recorded so far: turns until the range noted at the start is sealed (each turn
 * waits for the transactions open then; a few milliseconds, or up to `timeoutMs`).
 */
export async function sealAll(
  db: Db,
  key: Buffer,
  { timeoutMs = 10_000, format = SEAL_FORMAT }: { timeoutMs?: number; format?: number } = {},
): Promise<void> {
  const [start] = rowsOf<{ last: string }>(
    await db.execute(
      sql`SELECT (CASE WHEN is_called THEN last_value ELSE 0 END)::text AS last FROM audit_events_seq_seq`,
    ),
  );
  const target = BigInt(start?.last ?? '0');
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const turn = await sealTurn(db, key, format);
    // A backlog is sealed SEAL_LIMIT records a turn, without waiting between turns.
    if (turn.more) continue;
    const [last] = rowsOf<{ to: string }>(
      await db.execute(sql`SELECT COALESCE(max(to_seq), 0)::text AS "to" FROM audit_seals`),
    );
    if (BigInt(last?.to ?? '0') >= target) return;
    if (Date.now() > deadline) throw new Error('audit records stay unsealed: a transaction stays open');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
