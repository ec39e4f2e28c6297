// Execute (spec row 12): with the PSU token of this payment, the bank executes it once; executing an
// executed payment answers its status unchanged (API-NOTES "Statuses"). A signing basket executes all
// or nothing: its payments are one booking order, and a rejection rejects every one of them.
import type { App } from '../../domain/apps.ts';
import type { AuditActor, PaymentMover } from '../../domain/audit.ts';
import type { Basket } from '../../domain/baskets.ts';
import { apiError } from '../../domain/errors.ts';
import { awaitsExecution, type Payment } from '../../domain/payment.ts';
import { formatResourceScope } from '../../domain/scope.ts';
import { findBasket, listBasketPayments, lockBasketPayments } from '../../store/baskets-repository.ts';
import type { Db } from '../../store/database.ts';
import { lockPayment } from '../../store/payments/locks.ts';
import { findPayment } from '../../store/payments/reads.ts';
import { requirePsuToken, type TokenGrant } from '../access/tokens.ts';
import type { ServiceContext } from '../shared/context.ts';
import { noExchangeToday } from '../shared/exchange.ts';
import { type Answer, type Claim, recordOnce, underKey } from '../shared/idempotency.ts';
import {
  bookOneRecorded,
  countMoves,
  finishBooking,
  finishOneBooking,
  type Move,
  type OneExecution,
  startBooking,
} from './booking.ts';
import { checkPaymentOfApp, keyedOn, noSuchPayment, productOfPath } from './payment-access.ts';
import { acceptToSettleLater } from './settlement.ts';
import {
  type BasketStatusResponse,
  basketMembersOf,
  basketStatusBody,
  type PaymentStatusResponse,
  statusBody,
} from './status-body.ts';

export interface ExecuteRequest {
  readonly app: App;
  readonly grant: TokenGrant;
  /** The Idempotency-Key header, if sent. */
  readonly idempotencyKey: string | undefined;
  readonly productName: string;
  readonly paymentId: string;
  /** Who calls, for the audit records of the moves (the TPP, with the PSU's token). */
  readonly actor?: AuditActor;
}

/** What is executed: the payments under one booking key (read and checked; locked), and the answer. */
interface Execution<T> {
  readonly key: string;
  /** The payments, checked: throws when this call may not execute them. */
  read(): Promise<readonly Payment[]>;
  /** The same, locked until the transaction ends. */
  lock(trx: Db): Promise<readonly Payment[]>;
  answer(payments: readonly Payment[]): Answer<T>;
}

/**
 * Executes: the booking is asked (the payments marked in one statement), booked by the bank, and its
 * outcome recorded with the answer (under the Idempotency-Key's claim, when the request has a key) in
 * one transaction, or for one payment in one statement (services/payments/booking.ts); one payment
 * booked by the built-in ledger, all in one call. A key used before answers its first answer and books
 * nothing; executing an executed payment answers its status, key or not.
 */
function executeOnce<T>(
  context: ServiceContext,
  request: ExecuteRequest,
  execution: Execution<T>,
): Promise<Answer<T>> {
  const mover: PaymentMover = { by: 'tpp', actor: request.actor ?? {} };
  return underKey(context, keyedOn(request, 'execute'), (claim) =>
    executeClaimed(context, execution, claim, mover),
  );
}

async function executeClaimed<T>(
  context: ServiceContext,
  execution: Execution<T>,
  claim: Claim | undefined,
  mover: PaymentMover,
): Promise<Answer<T>> {
  const payments = await execution.read();
  const unconvertible = payments.find(
    (payment) =>
      awaitsExecution(payment) && noExchangeToday(context, payment.debtorCurrency, payment.amount.currency),
  );
  if (unconvertible !== undefined) {
    // Nothing is booked or marked: the payment waits in its status, to be executed once there is a rate.
    throw apiError(
      'PAYMENT_FAILED',
      `the bank has no exchange rate for ${unconvertible.debtorCurrency}/${unconvertible.amount.currency} today: the payment was not executed`,
    );
  }
  // One payment: booked and recorded in one call when the core banking system shares our database.
  const one: OneExecution<T> | undefined =
    payments.length === 1
      ? {
          payment: payments[0]!,
          claim,
          answer: (moved) => execution.answer([moved]),
          mover,
        }
      : undefined;
  if (one !== undefined && awaitsExecution(one.payment)) {
    const answered =
      (await acceptToSettleLater(context, one)) ?? (await bookOneRecorded(context, execution.key, one));
    if (answered !== undefined) return answered;
  }
  // Waiting for execution, or for the answer to a booking asked before (a retry, a concurrent call).
  const order = payments.every(awaitsExecution)
    ? await startBooking(context, payments, execution.key, mover)
    : undefined;
  const answer = (trx: Db) => execution.lock(trx).then((locked) => execution.answer(locked));
  if (order === undefined) return recordOnce(context.db, claim, answer);
  const outcome = await context.coreBanking.book(order);
  if (one !== undefined) {
    const answered = await finishOneBooking(context, order, outcome, one);
    if (answered !== undefined) return answered;
  }
  let moves: readonly Move[] = [];
  try {
    return await recordOnce(
      context.db,
      claim,
      async (trx) => {
        moves = await finishBooking(trx, context, order, outcome, mover);
        return answer(trx);
      },
      () => countMoves(context, moves),
    );
  } catch (error) {
    // The bank has answered: its outcome is recorded even when the answer is not (a claim lost to
    // another request meanwhile); if this fails too, the recovery records it later.
    await context.db
      .transaction((trx) => finishBooking(trx, context, order, outcome, mover))
      .then((recorded) => countMoves(context, recorded))
      .catch(() => {});
    throw error;
  }
}

export async function executePayment(
  context: ServiceContext,
  request: ExecuteRequest,
): Promise<Answer<PaymentStatusResponse | BasketStatusResponse>> {
  productOfPath(request.productName);
  requirePsuToken(
    request.grant,
    request.app.clientId,
    formatResourceScope({ service: 'PIS', resourceId: request.paymentId }),
  );
  // A payment id is never a basket's: most executions are of a payment, and only an unknown id is
  // looked for among the baskets.
  const first = await findPayment(context.db, request.paymentId);
  if (first === undefined) {
    const basket = await findBasket(context.db, request.paymentId);
    if (basket !== undefined) return executeBasket(context, request, basket);
  }
  const check = (found: Payment | undefined) => {
    const payment = checkPaymentOfApp(found, request.paymentId, request.productName, request.app.clientId);
    if (request.grant.psuId !== payment.psuId) {
      throw apiError('TOKEN_INVALID', 'The access token was issued by another PSU');
    }
    return [payment];
  };
  return executeOnce(context, request, {
    key: request.paymentId,
    read: async () => check(first),
    lock: async (trx) => check(await lockPayment(trx, request.paymentId)),
    answer: ([payment]) => ({ statusCode: 200, body: statusBody(context, payment!, payment!.status) }),
  });
}

function executeBasket(
  context: ServiceContext,
  request: ExecuteRequest,
  basket: Basket,
): Promise<Answer<BasketStatusResponse>> {
  if (basket.clientId !== request.app.clientId) throw noSuchPayment();
  if (request.grant.psuId !== basket.psuId)
    throw apiError('TOKEN_INVALID', 'The access token was issued by another PSU');
  const product = productOfPath(request.productName);
  const check = (members: readonly Payment[]) => {
    basketMembersOf(basket.basketId, members, product);
    if (members.some(awaitsExecution) && !members.every(awaitsExecution)) {
      throw new Error(`basket ${basket.basketId} is partly executed`);
    }
    return members;
  };
  return executeOnce(context, request, {
    key: basket.basketId,
    read: async () => check(await listBasketPayments(context.db, basket.basketId)),
    lock: async (trx) => check(await lockBasketPayments(trx, basket.basketId)),
    answer: (members) => ({ statusCode: 200, body: basketStatusBody(basket.basketId, members) }),
  });
}
