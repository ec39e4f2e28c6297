// Books future-dated payments on their date. Each run takes the due payments in a transaction with
// FOR UPDATE SKIP LOCKED, so several gateway processes on one PostgreSQL share the work and book each
// payment exactly once; the move out of ACCP is conditional as well.
import type { FastifyBaseLogger } from 'fastify';
import { lockDuePayments } from '../../store/payments-repository.ts';
import { type ServiceContext, today } from '../shared/context.ts';
import { recordResult } from './booking.ts';

const BATCH = 100;

/** Books what is due today; answers how many payments it booked. */
export async function bookDuePayments(context: ServiceContext): Promise<number> {
  const date = today(context);
  let booked = 0;
  for (;;) {
    const count = await context.db.transaction(async (trx) => {
      const due = await lockDuePayments(trx, date, BATCH);
      for (const payment of due) {
        const result = await context.coreBanking.execute(trx, payment, date);
        await recordResult(trx, payment, 'ACCP', result, context.clock());
      }
      return due.length;
    });
    booked += count;
    if (count < BATCH) return booked;
  }
}

/** Runs bookDuePayments every intervalMs until stopped; a failed run is logged and retried next time. */
export function startScheduler(
  context: ServiceContext,
  intervalMs: number,
  log: FastifyBaseLogger,
): () => Promise<void> {
  let running: Promise<unknown> = Promise.resolve();
  const timer = setInterval(() => {
    running = running.then(() =>
      bookDuePayments(context).then(
        (booked) => {
          if (booked > 0) log.info({ booked }, 'booked future-dated payments');
        },
        (error: unknown) => log.error({ err: error }, 'booking future-dated payments failed'),
      ),
    );
  }, intervalMs);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await running;
  };
}
