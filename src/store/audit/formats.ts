// What a seal is made of, by its format (audit_seals.format): each record's digest and the MAC over a
// range's. The sealer (seal.ts) makes seals in SEAL_FORMAT; verify (verify.ts) reads every format.
import { createHmac } from 'node:crypto';
import { sql } from 'drizzle-orm';

/**
 * A record's canonical form, by the seal's format, and the first 16 bytes of its SHA-256 (SQL over
 * audit_events). Format 1, the first seals', is a JSON array; format 2 (migration 0036) a row value,
 * hashed in half the time on PGlite (docs/decisions.md "the sealer's cost"), with the time as text of
 * a fixed pattern so that no session setting (DateStyle, TimeZone) changes it; format 3 the row value
 * with the time as the column's own text, fixed by the settings the sealing and verifying transactions
 * take (FIXED_SETTINGS), and a contiguous range's seqs not listed. Format 4 is the row value's binary
 * form (record_send: each column's type, length and binary value, the time in microseconds), which no
 * setting changes and which takes half the time of the text (docs/decisions.md "seals in a fourth
 * format"); its text and jsonb columns are sent in the client's encoding, UTF8 on every connection the
 * gateway opens (pg and PGlite both set it).
 */
const CANONICAL: Readonly<Record<number, string>> = {
  1: `convert_to(jsonb_build_array(seq, xid::text, at AT TIME ZONE 'UTC', event, outcome, resource, tpp_id,
    app_id, certificate, psu_id, address, correlation_id, detail)::text, 'UTF8')`,
  2: `convert_to(ROW(seq, xid, to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US'), event, outcome,
    resource, tpp_id, app_id, certificate, psu_id, address, correlation_id, detail)::text, 'UTF8')`,
  3: `convert_to(ROW(seq, xid, at, event, outcome, resource, tpp_id, app_id, certificate, psu_id, address,
    correlation_id, detail)::text, 'UTF8')`,
  4: `record_send(ROW(seq, xid, at, event, outcome, resource, tpp_id, app_id, certificate, psu_id, address,
    correlation_id, detail))`,
};

/** The format new seals are made in. */
export const SEAL_FORMAT = 4;

/**
 * A timestamptz's text's settings, fixed where format 3 is digested (formats 1 and 2 spell the time
 * out, format 4 sends it in binary): the sealer's first statement sets them, verify before it reads.
 */
export const FIXED_SETTINGS = sql`set_config('TimeZone', 'UTC', true), set_config('DateStyle', 'ISO, YMD', true)`;

/** Whether a seal's digests depend on the settings FIXED_SETTINGS fixes. */
export function needsFixedSettings(format: number): boolean {
  return format === 3;
}

/** The seqs as the MAC takes them: from format 3, `*` for a range that lacks none, which lists none. */
export function macSeqs(format: number, seqs: string, all: boolean): string {
  return format >= 3 && all ? '*' : seqs;
}

/** A record's digest in a seal of `format`, as SQL over audit_events. */
export function digestSql(format: number): string {
  const canonical = CANONICAL[format];
  if (canonical === undefined) throw new Error(`audit seal format ${format} is unknown to this version`);
  return `substring(sha256(${canonical}) from 1 for 16)`;
}

/**
 * A range's first and last time as the MAC takes them from format 4 (export and retention rely on
 * them): SQL of their binary form in hex, `first|last`, each empty for none.
 */
export function timesSql(first: string, last: string): string {
  return `COALESCE(encode(timestamptz_send(${first}), 'hex'), '') || '|' ||
    COALESCE(encode(timestamptz_send(${last}), 'hex'), '')`;
}

/** What a seal's MAC is made over: `times` (timesSql's) counts from format 4. */
export interface MacInput {
  readonly prevMac: string;
  readonly from: string;
  readonly to: string;
  readonly seqs: string;
  readonly digests: string;
  readonly times: string;
}

export function macOf(key: Buffer, format: number, input: MacInput): string {
  const { prevMac, from, to, seqs, digests, times } = input;
  // Format 1's MAC did not name its format; later formats' do, so a seal cannot be read as another's.
  const text = `${prevMac}|${from}|${to}|${seqs}|${digests}`;
  const body = format === 1 ? text : `${format}|${text}`;
  return createHmac('sha256', key)
    .update(format >= 4 ? `${body}|${times}` : body)
    .digest('hex');
}
