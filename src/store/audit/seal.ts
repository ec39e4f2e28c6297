// Tamper evidence without touching a record twice (issue 39, docs/decisions.md). Records take a seq
// and their transaction's id; a sealer (one at a time: the row of audit_sealer, locked FOR UPDATE)
// notes the last seq handed out and the first transaction id not yet given (pending_seq and
// pending_xmax), and once every transaction below that id has finished (none can still add a record at
// or below pending_seq) it seals the range from the last seal up to pending_seq: the seq and a digest
// of every record in it, and an HMAC-SHA256 (AUDIT_KEY) over them chained with the previous seal's.
// A seq the range lacks (a rolled-back transaction's) is simply not listed; from format 3 a range that
// lacks none lists no seq at all. Verify recomputes the chain and compares each sealed list with the
// records there now: the first changed, missing or added record is named.
import { createHmac } from 'node:crypto';
import { sql } from 'drizzle-orm';
import type { Db } from '../database.ts';

/**
 * A record's canonical text, by the seal's format (audit_seals.format), and the first 16 bytes of its
 * SHA-256 (SQL over audit_events). Format 1, the first seals', is a JSON array; format 2 (migration
 * 0036) a row value, hashed in half the time on PGlite (docs/decisions.md "the sealer's cost"), with
 * the time as text of a fixed pattern so that no session setting (DateStyle, TimeZone) changes it;
 * format 3 the row value with the time as the column's own text, fixed by the settings the sealing and
 * verifying transactions take (FIXED_SETTINGS), and a contiguous range's seqs not listed.
 */
const CANONICAL: Readonly<Record<number, string>> = {
  1: `jsonb_build_array(seq, xid::text, at AT TIME ZONE 'UTC', event, outcome, resource, tpp_id, app_id,
    certificate, psu_id, address, correlation_id, detail)::text`,
  2: `ROW(seq, xid, to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US'), event, outcome, resource,
    tpp_id, app_id, certificate, psu_id, address, correlation_id, detail)::text`,
  3: `ROW(seq, xid, at, event, outcome, resource, tpp_id, app_id, certificate, psu_id, address, correlation_id,
    detail)::text`,
};

/** The format new seals are made in. */
export const SEAL_FORMAT = 3;

/** A timestamptz's text's settings, fixed where format 3 is digested: the sealer's first statement sets them. */
const FIXED_SETTINGS = sql`set_config('TimeZone', 'UTC', true), set_config('DateStyle', 'ISO, YMD', true)`;

/** The seqs as the MAC takes them: from format 3, `*` for a range that lacks none, which lists none. */
function macSeqs(format: number, seqs: string, all: boolean): string {
  return format >= 3 && all ? '*' : seqs;
}

/** The most records one seal takes: a turn holds PGlite's one thread for a few milliseconds at most. */
export const SEAL_LIMIT = 1_000;

function digestSql(format: number): string {
  const canonical = CANONICAL[format];
  if (canonical === undefined) throw new Error(`audit seal format ${format} is unknown to this version`);
  return `substring(sha256(convert_to(${canonical}, 'UTF8')) from 1 for 16)`;
}

function rowsOf<T>(result: unknown): T[] {
  return (result as { rows: T[] }).rows;
}

function macOf(
  key: Buffer,
  format: number,
  prevMac: string,
  from: string,
  to: string,
  seqs: string,
  digests: string,
): string {
  // Format 1's MAC did not name its format; later formats' do, so a seal cannot be read as another's.
  const text = `${prevMac}|${from}|${to}|${seqs}|${digests}`;
  return createHmac('sha256', key)
    .update(format === 1 ? text : `${format}|${text}`)
    .digest('hex');
}

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
          ${format >= 3 ? sql`, ${FIXED_SETTINGS}` : sql``}
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
      // The digests are made and joined by the database: one row comes back, not one per record.
      const from = BigInt(state.lastTo) + 1n;
      const limit = from + BigInt(SEAL_LIMIT) - 1n;
      const to = String(limit < BigInt(state.pending) ? limit : BigInt(state.pending));
      const inRange = sql`FROM audit_events WHERE seq >= ${String(from)}::bigint AND seq <= ${to}::bigint`;
      const [range] = rowsOf<{ count: number; digests: string; lastAt: string | null }>(
        await trx.execute(sql`SELECT count(*)::int AS count,
            COALESCE(encode(string_agg(digest, ''::bytea ORDER BY seq), 'hex'), '') AS digests,
            max(at)::text AS "lastAt"
          FROM (SELECT seq, at, ${sql.raw(digestSql(format))} AS digest ${inRange}) r`),
      );
      const { count, digests, lastAt } = range!;
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
      const mac = macOf(key, format, state.lastMac, String(from), to, macSeqs(format, seqs, all), digests);
      await trx.execute(sql`INSERT INTO audit_seals (from_seq, to_seq, count, seqs, digests, last_at, prev_mac, mac, format)
        VALUES (${String(from)}::bigint, ${to}::bigint, ${count}, ${`{${seqs}}`}::bigint[],
                decode(${digests}, 'hex'), ${lastAt}::timestamptz,
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

export type Verdict =
  | { readonly ok: true; readonly seals: number; readonly records: number }
  | { readonly ok: false; readonly seq: string; readonly problem: string };

interface SealRow {
  readonly from: string;
  readonly to: string;
  readonly count: number;
  readonly seqs: string;
  readonly digests: string;
  readonly prevMac: string | null;
  readonly mac: string;
  readonly format: number;
}

/**
 * Verifies the trail as sealed: the chain of seals, and each seal's records against those there now.
 * The trail starts at the oldest kept seal; when retention removed older ones, a sealed
 * `audit.retention` record must name that seal's first seq (store/audit/retention.ts).
 */
export async function verifyTrail(db: Db, key: Buffer): Promise<Verdict> {
  const seals = rowsOf<SealRow>(
    await db.execute(sql`SELECT from_seq::text AS "from", to_seq::text AS "to", count,
        array_to_string(seqs, ',') AS seqs, encode(digests, 'hex') AS digests,
        encode(prev_mac, 'hex') AS "prevMac", encode(mac, 'hex') AS mac, format
      FROM audit_seals ORDER BY from_seq`),
  );
  let records = 0;
  let previous: SealRow | undefined;
  const first = seals[0];
  if (first !== undefined) {
    const [early] = rowsOf<{ seq: string }>(
      await db.execute(sql`SELECT min(seq)::text AS seq FROM audit_events WHERE seq < ${first.from}::bigint`),
    );
    if (early?.seq != null) return { ok: false, seq: early.seq, problem: 'inserted before the first seal' };
    if (first.from !== '1') {
      const [cut] = rowsOf<{ n: number }>(
        await db.execute(sql`SELECT count(*)::int AS n FROM audit_events
          WHERE event = 'audit.retention' AND detail ->> 'keptFrom' = ${first.from}`),
      );
      if ((cut?.n ?? 0) === 0)
        return {
          ok: false,
          seq: String(BigInt(first.from) - 1n),
          problem: 'deleted (no retention recorded it)',
        };
    }
  }
  for (const seal of seals) {
    if (previous !== undefined) {
      if (BigInt(seal.from) !== BigInt(previous.to) + 1n)
        return { ok: false, seq: String(BigInt(previous.to) + 1n), problem: 'deleted (a seal is missing)' };
      if (seal.prevMac !== previous.mac) return { ok: false, seq: seal.from, problem: 'seal chain broken' };
    }
    // A format this version cannot read (a newer version's seal) is neither passed nor called altered.
    const digest = digestSql(seal.format);
    // From format 3 a seal listing no seq but holding records lacks none: checked before it is spelled out.
    const all = seal.format >= 3 && seal.seqs === '' && seal.count > 0;
    const listed = seal.seqs === '' ? [] : seal.seqs.split(',');
    const macText = macSeqs(seal.format, seal.seqs, all);
    if (
      macOf(key, seal.format, seal.prevMac ?? '', seal.from, seal.to, macText, seal.digests) !== seal.mac ||
      (all ? BigInt(seal.to) - BigInt(seal.from) + 1n : BigInt(listed.length)) !== BigInt(seal.count)
    )
      return { ok: false, seq: seal.from, problem: 'seal altered' };
    const seqs = all ? rangeOf(seal.from, seal.to) : listed;
    const read = async (on: Db) =>
      rowsOf<{ seq: string; digest: string }>(
        await on.execute(sql`SELECT seq::text AS seq, encode(${sql.raw(digest)}, 'hex') AS digest
          FROM audit_events
          WHERE seq >= ${seal.from}::bigint AND seq <= ${seal.to}::bigint ORDER BY audit_events.seq`),
      );
    // Formats 1 and 2 spell the time out with to_char: only format 3's text needs the settings fixed.
    const now =
      seal.format >= 3
        ? await db.transaction(async (trx) => {
            await trx.execute(sql`SELECT ${FIXED_SETTINGS}`);
            return read(trx);
          })
        : await read(db);
    const problem = firstDifference(seqs, seal.digests, now);
    if (problem !== undefined) return { ok: false, ...problem };
    records += now.length;
    previous = seal;
  }
  return { ok: true, seals: seals.length, records };
}

/** The seqs from `from` to `to`, both included. */
function rangeOf(from: string, to: string): string[] {
  const seqs: string[] = [];
  for (let seq = BigInt(from); seq <= BigInt(to); seq += 1n) seqs.push(String(seq));
  return seqs;
}

/** The first record where what was sealed and what is there now differ. */
function firstDifference(
  seqs: readonly string[],
  digests: string,
  now: readonly { seq: string; digest: string }[],
): { seq: string; problem: string } | undefined {
  let i = 0;
  let j = 0;
  while (i < seqs.length || j < now.length) {
    const sealed = i < seqs.length ? BigInt(seqs[i]!) : undefined;
    const there = j < now.length ? BigInt(now[j]!.seq) : undefined;
    if (there === undefined || (sealed !== undefined && sealed < there))
      return { seq: String(sealed), problem: 'deleted' };
    if (sealed === undefined || there < sealed)
      return { seq: String(there), problem: 'inserted out of order' };
    if (digests.slice(i * 32, i * 32 + 32) !== now[j]!.digest)
      return { seq: String(there), problem: 'changed' };
    i += 1;
    j += 1;
  }
  return undefined;
}
