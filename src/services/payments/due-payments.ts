// Books future-dated payments on their date, and completes bookings whose answer was lost. Each run
// takes the due payments in a transaction with FOR UPDATE SKIP LOCKED and marks them (booking.ts), so
// several gateway processes on one PostgreSQL share the work and ask each booking once.
import type { FastifyBaseLogger } from 'fastify';
import { SYSTEM_MOVER } from '../../domain/audit.ts';
import { nextStatus } from '../../domain/payment.ts';
import { lockDuePayments } from '../../store/payments/locks.ts';
import { moveStatus } from '../../store/payments/moves.ts';
import { type ServiceContext, today } from '../shared/context.ts';
import { completeBooking, countMoves, type Move, recoverBookings, startBooking } from './booking.ts';
import { settlementRejection } from './settlement.ts';

const BATCH = 100;

/**
 * Books what is due today (future-dated payments on their date, accepted ones on their settlement day;
 * a settlement scenario's rejection rejects instead); only the app `clientId`'s when given. Answers
 * how many payments it booked (or saw rejected).
 */
export async function bookDuePayments(context: ServiceContext, clientId?: string): Promise<number> {
  const date = today(context);
  let booked = 0;
  for (;;) {
    const rejected: Move[] = [];
    const orders = await context.db.transaction(async (trx) => {
      const due = await lockDuePayments(trx, date, BATCH, clientId);
      const asked = [];
      for (const payment of due) {
        const rejection = settlementRejection(context, payment);
        if (rejection !== undefined) {
          const to = nextStatus(payment, { type: 'rejected' });
          await moveStatus(trx, payment.id, payment.status, to, context.clock(), SYSTEM_MOVER, rejection);
          rejected.push({ product: payment.product, to, reasonCode: rejection.reasonCode });
          continue;
        }
        const order = await startBooking(context, [payment], payment.id, SYSTEM_MOVER, trx);
        if (order !== undefined) asked.push(order);
      }
      return { count: due.length, asked };
    });
    countMoves(context, rejected);
    // One order whose answer is lost stays marked for the recovery; the others go on.
    const failed = (
      await Promise.allSettled(orders.asked.map((order) => completeBooking(context, order)))
    ).find((result) => result.status === 'rejected');
    if (failed !== undefined) throw failed.reason;
    booked += orders.count;
    if (orders.count < BATCH) return booked;
  }
}

/**
 * Runs bookDuePayments and the recovery of unanswered bookings every intervalMs until stopped; a failed
 * run is logged and retried next time.
 */
export function startScheduler(
  context: ServiceContext,
  intervalMs: number,
  log: FastifyBaseLogger,
  /** Other contexts' turns (e.g. consents that expire), after the bookings; each answers what it changed. */
  others: readonly { readonly name: string; readonly run: () => Promise<number> }[] = [],
): () => Promise<void> {
  const run = async () => {
    const recovered = await recoverBookings(context, undefined, (error, key) =>
      log.error({ err: error, bookingKey: key }, 'completing an unanswered booking failed'),
    );
    if (recovered > 0) log.warn({ recovered }, 'completed bookings whose answer had been lost');
    const booked = await bookDuePayments(context);
    if (booked > 0) log.info({ booked }, 'booked future-dated payments');
    for (const other of others) {
      const changed = await other.run();
      if (changed > 0) log.info({ changed }, other.name);
    }
  };
  let running: Promise<unknown> = Promise.resolve();
  const timer = setInterval(() => {
    running = running
      .then(run)
      .catch((error: unknown) => log.error({ err: error }, 'booking payments failed'));
  }, intervalMs);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await running;
  };
}
