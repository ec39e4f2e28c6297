// Payments read and locked until the transaction ends (SELECT ... FOR UPDATE): the service locks the
// row before it changes the status.
import { and, asc, eq, inArray, isNull, lte, or, type SQL } from 'drizzle-orm';
import type { Payment } from '../../domain/payment.ts';
import type { Db } from '../database.ts';
import { payments } from '../schema.ts';
import { paymentColumns, toPayment } from './rows.ts';

/** Reads a payment and locks its row until the transaction ends (SELECT ... FOR UPDATE). */
export async function lockPayment(trx: Db, paymentId: string): Promise<Payment | undefined> {
  const rows = await trx
    .select(paymentColumns)
    .from(payments)
    .where(eq(payments.paymentId, paymentId))
    .limit(1)
    .for('update');
  return rows[0] === undefined ? undefined : toPayment(rows[0]);
}

/** Reads payments and locks their rows until the transaction ends, in id order (lockers never deadlock). */
export async function lockPayments(trx: Db, paymentIds: readonly string[]): Promise<Payment[]> {
  if (paymentIds.length === 0) return [];
  const rows = await trx
    .select(paymentColumns)
    .from(payments)
    .where(inArray(payments.paymentId, [...paymentIds]))
    .orderBy(asc(payments.paymentId))
    .for('update');
  return rows.map((row) => toPayment(row));
}

/**
 * Due payments with no booking under way, locked for this transaction: future-dated ones whose date has
 * come, and accepted ones whose settlement day has (the sandbox's settlement scenarios); only the app
 * `clientId`'s when given (an app's sandbox clock moved). Rows another process has locked are skipped,
 * so several schedulers share the work and ask each booking once.
 */
export async function lockDuePayments(
  trx: Db,
  today: string,
  limit: number,
  clientId?: string,
): Promise<Payment[]> {
  const conditions: (SQL | undefined)[] = [
    eq(payments.status, 'ACCP'),
    or(lte(payments.requestedExecutionDate, today), lte(payments.settlesOn, today)),
    isNull(payments.bookingKey),
    clientId === undefined ? undefined : eq(payments.clientId, clientId),
  ];
  const rows = await trx
    .select(paymentColumns)
    .from(payments)
    .where(and(...conditions))
    .orderBy(asc(payments.requestedExecutionDate), asc(payments.paymentId))
    .limit(limit)
    .for('update', { skipLocked: true });
  return rows.map((row) => toPayment(row));
}

/** The payments waiting for the answer to the order `key`, locked until the transaction ends. */
export async function lockPaymentsOfBooking(trx: Db, key: string): Promise<Payment[]> {
  const rows = await trx
    .select(paymentColumns)
    .from(payments)
    .where(eq(payments.bookingKey, key))
    .orderBy(asc(payments.paymentId))
    .for('update');
  return rows.map((row) => toPayment(row));
}
