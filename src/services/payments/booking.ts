// Booking payments through the core banking port exactly once, although the core banking system does
// not share our transaction. Three steps: (1) in our transaction, with the payments locked, the
// booking is asked for: the payments are marked with the order's idempotency key (the payment's id,
// or its basket's) and when; (2) the core banking system books the order, idempotently under the key;
// (3) in our transaction, the outcome moves the payments on and clears the mark. If our process dies
// or the answer is lost between (1) and (3), the payments stay marked: a retried execute, or the
// recovery that the scheduler runs, asks the system again under the same key, which books nothing
// twice and answers the first outcome. A marked payment cannot be cancelled. A system that does share
// our database (the built-in ledger: context.recordedBookings) books one payment's execution in one
// transaction instead, the three steps together (bookOneRecorded).
import { type PaymentMover, SYSTEM_MOVER } from '../../domain/audit.ts';
import { dateIn } from '../../domain/dates.ts';
import {
  nextStatus,
  type Payment,
  statusAfterExecution,
  type TransactionStatus,
} from '../../domain/payment.ts';
import { findProduct } from '../../domain/products.ts';
import type { BookingLine, BookingOrder, BookingOutcome } from '../../ports/core-banking.ts';
import type { Db } from '../../store/database.ts';
import { markBooking, markOneBooking, unansweredBookings } from '../../store/payments/bookings.ts';
import { lockPayments, lockPaymentsOfBooking } from '../../store/payments/locks.ts';
import { moveBookedAnswering, moveStatus } from '../../store/payments/moves.ts';
import { type ServiceContext, today } from '../shared/context.ts';
import { type Answer, answerOfKey, type Claim, recordOnce } from '../shared/idempotency.ts';

/** A payment moved by a booking's outcome, told to the metrics once its transaction has committed. */
export interface Move {
  readonly product: string;
  readonly to: TransactionStatus;
  readonly reasonCode?: string;
}

/** Tells the metrics of payments a committed booking moved: their new status and the execution's result. */
export function countMoves(context: ServiceContext, moves: readonly Move[]): void {
  for (const move of moves) {
    context.metrics.paymentStatus(move.product, move.to);
    if (move.to === 'RJCT') {
      context.metrics.paymentExecuted('rejected');
      context.metrics.paymentRejected(move.reasonCode ?? '');
    } else context.metrics.paymentExecuted(move.to === 'ACCP' ? 'scheduled' : 'booked');
  }
}

/** How long an unanswered booking is left to its own process before the recovery asks again. */
const RECOVER_BOOKINGS_AFTER_MS = 60_000;

function lineOf(payment: Payment, timeZone: string): BookingLine {
  return {
    paymentId: payment.id,
    product: payment.product,
    debtorAccountId: payment.debtorAccountId,
    amount: payment.amount,
    creditorAccount: payment.creditorAccount,
    creditorName: payment.creditorName,
    withinBank: findProduct(payment.product)!.settlement === 'ACCC',
    remittance: payment.remittance,
    reference: payment.tppPaymentReference,
    initiatedOn: dateIn(payment.createdAt, timeZone),
  };
}

/** The order of payments booked on `date` under `key`: a line for each payment due by then. */
function orderOf(key: string, date: string, payments: readonly Payment[], timeZone: string): BookingOrder {
  const due = payments.filter((payment) => statusAfterExecution(payment, 'ACSC', date) !== 'ACCP');
  return { key, bookingDate: date, lines: due.map((payment) => lineOf(payment, timeZone)) };
}

/**
 * Step 1: asks for the booking of payments the caller has checked, all waiting in one status (ACTC to
 * execute, ACCP on their date): marks them in one statement (in `trx` when given) and answers the
 * order to send. Payments marked before continue their earlier order. When no payment is due yet,
 * nothing is asked: they move to ACCP at once. Answers undefined when there is nothing to ask (the
 * payments moved meanwhile, or none is due yet). `mover` is who asks: a TPP's execution, or the scheduler.
 */
export async function startBooking(
  context: ServiceContext,
  payments: readonly Payment[],
  key: string,
  mover: PaymentMover,
  trx?: Db,
): Promise<BookingOrder | undefined> {
  const from = payments[0]!.status;
  const plan = orderOf(key, today(context), payments, context.config.timeZone);
  if (plan.lines.length === 0) {
    const moves = await context.db.transaction(async (trx) => {
      const waiting = await lockPayments(
        trx,
        payments.map((payment) => payment.id),
      );
      return settle(
        trx,
        context,
        waiting.filter((payment) => payment.status === from),
        plan,
        { booked: true },
        mover,
      );
    });
    countMoves(context, moves);
    return undefined;
  }
  // One payment outside a transaction (an execution) is marked in a statement shared with concurrent
  // executions' marks.
  const [only] = payments;
  const marks =
    trx === undefined && payments.length === 1
      ? [await markOneBooking(context.db, only!.id, key, context.clock(), from)].filter(
          (mark) => mark !== undefined,
        )
      : await markBooking(
          trx ?? context.db,
          payments.map((payment) => payment.id),
          key,
          context.clock(),
          from,
        );
  if (marks.length === 0) return undefined;
  // The payments of an order move together (settle): all of them are marked, or none.
  if (marks.length !== payments.length) throw new Error(`booking ${key}: its payments left ${from} apart`);
  const { key: orderKey, startedAt } = marks[0]!;
  return orderOf(orderKey, dateIn(startedAt, context.config.timeZone), payments, context.config.timeZone);
}

/**
 * Step 3, in the caller's transaction: the outcome moves the payments still waiting for this order
 * (a concurrent step 3 may have moved them already): booked, each to its settlement status, or ACCP
 * when it is dated later; rejected, every one to RJCT with the reason; by `mover`, who records the
 * outcome (the execution's TPP, or the gateway's scheduler and recovery). Answers the moves, for the
 * caller to count (countMoves) once its transaction has committed.
 */
export async function finishBooking(
  trx: Db,
  context: ServiceContext,
  order: BookingOrder,
  outcome: BookingOutcome,
  mover: PaymentMover,
): Promise<Move[]> {
  return settle(trx, context, await lockPaymentsOfBooking(trx, order.key), order, outcome, mover);
}

/**
 * Where the outcome moves a payment of the order (domain/payment.ts nextStatus): booked, its settlement
 * status (ACCP when dated later); else RJCT. Throws on a move the transition table does not have.
 */
function moveOf(
  payment: Payment,
  order: BookingOrder,
  outcome: BookingOutcome,
): { to: TransactionStatus; rejection?: { reasonCode: string; reason: string } } {
  if (!outcome.booked) {
    const rejection = { reasonCode: outcome.reasonCode, reason: outcome.reason };
    return { to: nextStatus(payment, { type: 'rejected' }), rejection };
  }
  const settlement = findProduct(payment.product)!.settlement;
  return { to: nextStatus(payment, { type: 'executed', settlement, on: order.bookingDate }) };
}

/** The payment as an execution at `at` leaves it: moved to `to`, with the reason when rejected. */
function executed(
  payment: Payment,
  to: TransactionStatus,
  at: Date,
  rejection?: { readonly reasonCode: string; readonly reason: string },
): Payment {
  // Object.assign, not `{ ...payment, status: to, ... }`: docs/decisions.md, "Spreads followed by members".
  return Object.assign({}, payment, {
    status: to,
    executedAt: at,
    reasonCode: rejection?.reasonCode ?? null,
    reason: rejection?.reason ?? null,
    booking: null,
  });
}

function moveRecord(payment: Payment, to: TransactionStatus, reasonCode?: string): Move {
  return { product: payment.product, to, ...(reasonCode === undefined ? {} : { reasonCode }) };
}

async function settle(
  trx: Db,
  context: ServiceContext,
  payments: readonly Payment[],
  order: BookingOrder,
  outcome: BookingOutcome,
  mover: PaymentMover,
): Promise<Move[]> {
  const at = context.clock();
  const moves: Move[] = [];
  for (const payment of payments) {
    const { to, rejection } = moveOf(payment, order, outcome);
    if (!(await moveStatus(trx, payment.id, payment.status, to, at, mover, rejection))) {
      throw new Error(`payment ${payment.id} left ${payment.status} while locked`);
    }
    moves.push(moveRecord(payment, to, rejection?.reasonCode));
  }
  return moves;
}

/**
 * One payment's execution: the payment as read, the request's claim of its key (if any), its answer
 * once moved, and who executes it (the TPP's call).
 */
export interface OneExecution<T> {
  readonly payment: Payment;
  readonly claim: Claim | undefined;
  answer(moved: Payment): Answer<T>;
  readonly mover: PaymentMover;
}

/**
 * Step 3 for an order of one payment, with the answer to the request that executed it, in one
 * statement instead of finishBooking's transaction: `payment` is the payment as it was marked, and
 * `answer` the answer once it has moved. Answers that answer (or, when the claim was lost meanwhile,
 * what the key answers now); undefined when the payment no longer waits for this order (a
 * concurrent step 3 moved it): the caller then answers as after finishBooking.
 */
export async function finishOneBooking<T>(
  context: ServiceContext,
  order: BookingOrder,
  outcome: BookingOutcome,
  { payment, claim, answer, mover }: OneExecution<T>,
): Promise<Answer<T> | undefined> {
  const at = context.clock();
  const { to, rejection } = moveOf(payment, order, outcome);
  const reply = answer(executed(payment, to, at, rejection));
  const done = await moveBookedAnswering(
    context.db,
    { paymentId: payment.id, bookingKey: order.key, from: payment.status, to, at, rejection, mover },
    claim === undefined ? undefined : { claim, statusCode: reply.statusCode, body: reply.body },
  );
  if (!done.moved) return undefined;
  countMoves(context, [moveRecord(payment, to, rejection?.reasonCode)]);
  return done.answered ? reply : answerOfKey(context.db, claim!);
}

/**
 * Steps 1 to 3 in one call, for one payment and a core banking system that books in the gateway's own
 * database (context.recordedBookings): the payment, read waiting in its status and not marked, is
 * booked, moved and, when booked, answered in one transaction. A rejection moves it to RJCT in that
 * transaction, and its answer (which names the reason) is recorded right after, as any answer is.
 * Answers undefined, having done nothing, when the system cannot, when nothing is due today (the
 * payment moves to ACCP: startBooking), or when the payment moved or was marked meanwhile: the caller
 * takes the three steps.
 */
export async function bookOneRecorded<T>(
  context: ServiceContext,
  key: string,
  { payment, claim, answer, mover }: OneExecution<T>,
): Promise<Answer<T> | undefined> {
  const { recordedBookings } = context;
  if (recordedBookings === undefined || payment.booking !== null) return undefined;
  const order = orderOf(key, today(context), [payment], context.config.timeZone);
  if (order.lines.length === 0) return undefined;
  const booked = moveOf(payment, order, { booked: true }).to;
  // ledger_execute moves a rejected payment to RJCT itself (the transition trigger holds it to the
  // table); the domain names the same status, asked before anything is committed.
  const refused = nextStatus(payment, { type: 'rejected' });
  const at = context.clock();
  const reply = answer(executed(payment, booked, at));
  const outcome = await recordedBookings.bookRecorded(order, {
    paymentId: payment.id,
    from: payment.status,
    to: booked,
    mover,
    answer: claim === undefined ? undefined : { claim, statusCode: reply.statusCode, body: reply.body },
  });
  if (outcome === undefined) return undefined;
  if (outcome.booked) {
    countMoves(context, [moveRecord(payment, booked)]);
    return outcome.answered ? reply : answerOfKey(context.db, claim!);
  }
  countMoves(context, [moveRecord(payment, refused, outcome.reasonCode)]);
  const rejected = answer(executed(payment, refused, at, outcome));
  return claim === undefined ? rejected : recordOnce(context.db, claim, async () => rejected);
}

/**
 * Steps 2 and 3 for an order whose payments are marked, by the gateway itself (the scheduler, the
 * recovery): asks the bank and records its answer.
 */
export async function completeBooking(context: ServiceContext, order: BookingOrder): Promise<void> {
  const outcome = await context.coreBanking.book(order);
  countMoves(
    context,
    await context.db.transaction((trx) => finishBooking(trx, context, order, outcome, SYSTEM_MOVER)),
  );
}

/**
 * The recovery: bookings asked more than `olderThanMs` ago and never answered (the process died, the
 * answer was lost) are asked again under their key and recorded. Answers how many orders it completed;
 * one that fails again stays marked for the next run.
 */
export async function recoverBookings(
  context: ServiceContext,
  olderThanMs: number = RECOVER_BOOKINGS_AFTER_MS,
  log: (error: unknown, key: string) => void = () => {},
): Promise<number> {
  const before = new Date(context.clock().getTime() - olderThanMs);
  let completed = 0;
  for (const key of await unansweredBookings(context.db, before, 100)) {
    try {
      const order = await context.db.transaction(async (trx) => {
        const payments = await lockPaymentsOfBooking(trx, key);
        const startedAt = payments[0]?.booking?.startedAt;
        return startedAt === undefined
          ? undefined
          : orderOf(key, dateIn(startedAt, context.config.timeZone), payments, context.config.timeZone);
      });
      if (order === undefined) continue;
      await completeBooking(context, order);
      completed += 1;
    } catch (error) {
      log(error, key);
    }
  }
  return completed;
}
