// Verifying the audit trail (issue 39, `npx psd2-gateway audit verify`): the chain of seals, each
// seal's MAC, and each seal's records against those there now, in whichever format it was made
// (formats.ts). The first changed, missing or added record is named.
import { sql } from 'drizzle-orm';
import { type Db, rowsOf } from '../database.ts';
import { digestSql, FIXED_SETTINGS, macOf, macSeqs, needsFixedSettings, timesSql } from './formats.ts';

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
  /** The seal's first and last time (formats.ts timesSql), under its MAC from format 4. */
  readonly times: string;
}

/**
 * Verifies the trail as sealed: the chain of seals, and each seal's records against those there now.
 * The trail starts at the oldest kept seal; when retention removed older ones, a sealed
 * `audit.retention` record must name that seal's first seq (applyRetention, store/audit/trail.ts).
 */
export async function verifyTrail(db: Db, key: Buffer): Promise<Verdict> {
  const seals = rowsOf<SealRow>(
    await db.execute(sql`SELECT from_seq::text AS "from", to_seq::text AS "to", count,
        array_to_string(seqs, ',') AS seqs, encode(digests, 'hex') AS digests,
        encode(prev_mac, 'hex') AS "prevMac", encode(mac, 'hex') AS mac, format,
        ${sql.raw(timesSql('first_at', 'last_at'))} AS times
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
      macOf(key, seal.format, { ...seal, prevMac: seal.prevMac ?? '', seqs: macText }) !== seal.mac ||
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
    // Formats 1 and 2 spell the time out with to_char, format 4 sends it in binary: only format 3's
    // text needs the settings fixed.
    const now = needsFixedSettings(seal.format)
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
