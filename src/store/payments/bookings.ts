// A booking under way: the marks that say which core banking order a payment waits for, and the
// orders never answered.
import { and, asc, eq, inArray, isNotNull, lt, sql } from 'drizzle-orm';
import type { TransactionStatus } from '../../domain/payment.ts';
import { joinedStatement } from '../coalescer.ts';
import { type Db, runStatement, type StoreDb } from '../database.ts';
import { payments } from '../schema.ts';

/**
 * Marks payments still in `from` as waiting for the core banking system's answer to the order `key`,
 * in one statement; a payment marked before keeps its mark. Answers each marked payment's mark (the
 * earlier one where there was one); a payment no longer in `from` is left out.
 */
export async function markBooking(
  db: Db,
  paymentIds: readonly string[],
  key: string,
  at: Date,
  from: TransactionStatus,
): Promise<{ paymentId: string; key: string; startedAt: Date }[]> {
  const rows = await db
    .update(payments)
    .set({
      bookingKey: sql`coalesce(${payments.bookingKey}, ${key})`,
      bookingStartedAt: sql`coalesce(${payments.bookingStartedAt}, ${at})`,
    })
    .where(and(inArray(payments.paymentId, [...paymentIds]), eq(payments.status, from)))
    .returning({
      paymentId: payments.paymentId,
      key: payments.bookingKey,
      startedAt: payments.bookingStartedAt,
    });
  return rows.map((row) => ({ paymentId: row.paymentId, key: row.key!, startedAt: row.startedAt! }));
}

/** One payment's mark (markBooking), as the statement that marked it answers it. */
interface OneMark {
  readonly paymentId: string;
  readonly key: string;
  readonly at: Date;
  readonly from: TransactionStatus;
}

/**
 * Concurrent executions' marks in one statement and one commit (a payment never twice in one: the
 * later mark waits for the next statement, and keeps the earlier mark as markBooking does).
 */
const oneMarks = joinedStatement('mark_bookings', markBookings, { key: (mark) => mark.paymentId });

async function markBookings(
  db: StoreDb,
  marks: readonly OneMark[],
): Promise<({ key: string; startedAt: Date } | undefined)[]> {
  const rows = await runStatement<{ paymentId: string; key: string; startedAt: Date }>(
    db,
    'mark_bookings',
    `UPDATE payments p
        SET booking_key = coalesce(p.booking_key, w.booking_key),
            booking_started_at = coalesce(p.booking_started_at, w.started_at)
       FROM unnest($1::text[], $2::text[], $3::timestamptz[], $4::text[]) AS w (payment_id, booking_key, started_at, from_status)
      WHERE p.payment_id = w.payment_id AND p.status = w.from_status
      RETURNING p.payment_id AS "paymentId", p.booking_key AS key, p.booking_started_at AS "startedAt"`,
    [
      marks.map((mark) => mark.paymentId),
      marks.map((mark) => mark.key),
      marks.map((mark) => mark.at.toISOString()),
      marks.map((mark) => mark.from),
    ],
  );
  const marked = new Map(rows.map((row) => [row.paymentId, { key: row.key, startedAt: row.startedAt }]));
  return marks.map((mark) => marked.get(mark.paymentId));
}

/**
 * markBooking for one payment, outside a transaction: joined with concurrent executions' marks in one
 * statement (see coalescer.ts). Answers the payment's mark, or undefined when it is no longer in `from`.
 */
export function markOneBooking(
  db: StoreDb,
  paymentId: string,
  key: string,
  at: Date,
  from: TransactionStatus,
): Promise<{ key: string; startedAt: Date } | undefined> {
  return oneMarks(db, { paymentId, key, at, from });
}

/**
 * The keys of booking orders asked before `startedBefore` and never answered (the process asking
 * died, or the answer was lost), oldest first.
 */
export async function unansweredBookings(trx: Db, startedBefore: Date, limit: number): Promise<string[]> {
  const rows = await trx
    .selectDistinct({ key: payments.bookingKey, startedAt: payments.bookingStartedAt })
    .from(payments)
    .where(and(isNotNull(payments.bookingKey), lt(payments.bookingStartedAt, startedBefore)))
    .orderBy(asc(payments.bookingStartedAt))
    .limit(limit);
  return rows.map((row) => row.key!);
}
