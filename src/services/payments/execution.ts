// Execute (spec row 12): with the PSU token of this payment, the bank executes it once; executing an
// executed payment answers its status unchanged (API-NOTES "Statuses").
import { apiError, notYours } from '../../domain/errors.ts';
import { awaitsExecution, basketStatus, type TransactionStatus } from '../../domain/payment.ts';
import { formatResourceScope } from '../../domain/scope.ts';
import type { App } from '../../store/apps-repository.ts';
import { type Basket, findBasket, lockBasketPayments } from '../../store/baskets-repository.ts';
import type { Db } from '../../store/database.ts';
import { lockPayment } from '../../store/payments-repository.ts';
import { requirePsuToken, type TokenGrant } from '../access/tokens.ts';
import { type ServiceContext, today } from '../shared/context.ts';
import { type Answer, answerOnce } from '../shared/idempotency.ts';
import { recordResult } from './booking.ts';
import { checkPaymentOfApp, oncePerRequest, productOfPath } from './payment-access.ts';
import { type PaymentStatusResponse, statusBody } from './status-body.ts';

export interface ExecuteRequest {
  readonly app: App;
  readonly grant: TokenGrant;
  readonly requestId: string;
  readonly productName: string;
  readonly paymentId: string;
}

export interface BasketStatusResponse {
  readonly signingBasketId: string;
  readonly transactionStatus: string;
}

/** Thrown inside the execution transaction so that the bookings of a basket's other payments roll back. */
class BasketRejected extends Error {
  constructor(readonly rejection: { readonly reasonCode: string; readonly reason: string }) {
    super('basket rejected');
  }
}

/**
 * A basket executes all or nothing: the bank books every payment in one transaction; if it rejects
 * one, that transaction rolls back and every payment of the basket is rejected with its reason.
 */
async function executeBasket(
  context: ServiceContext,
  request: ExecuteRequest,
  basket: Basket,
): Promise<Answer<BasketStatusResponse>> {
  if (basket.clientId !== request.app.clientId)
    throw notYours(`Basket ${basket.basketId} was not initiated by this app`);
  if (request.grant.psuId !== basket.psuId)
    throw apiError('TOKEN_INVALID', 'The access token was issued by another PSU');
  const product = productOfPath(request.productName);
  const { key, print } = oncePerRequest(request, 'execute');
  const answer = (statuses: readonly TransactionStatus[]) => ({
    statusCode: 200,
    body: { signingBasketId: basket.basketId, transactionStatus: basketStatus(statuses) },
  });
  const lockMembers = async (trx: Db) => {
    const members = await lockBasketPayments(trx, basket.basketId);
    if (!members.some((member) => member.product === product.id)) {
      throw apiError('PRODUCT_INVALID', `Basket ${basket.basketId} holds no ${product.id} payment`);
    }
    if (members.some(awaitsExecution) && !members.every(awaitsExecution)) {
      throw new Error(`basket ${basket.basketId} is partly executed`);
    }
    return members;
  };
  try {
    return await answerOnce(context.db, key, print, async (trx) => {
      const members = await lockMembers(trx);
      if (!members.every(awaitsExecution)) return answer(members.map((member) => member.status));
      const date = today(context);
      const at = context.clock();
      const statuses: TransactionStatus[] = [];
      for (const member of members) {
        const result = await context.coreBanking.execute(trx, member, date);
        if (result.status === 'RJCT') throw new BasketRejected(result);
        statuses.push((await recordResult(trx, member, 'ACTC', result, at)).status);
      }
      return answer(statuses);
    });
  } catch (error) {
    if (!(error instanceof BasketRejected)) throw error;
    return answerOnce(context.db, key, print, async (trx) => {
      const members = await lockMembers(trx);
      if (!members.every(awaitsExecution)) return answer(members.map((member) => member.status));
      const rejection = { status: 'RJCT' as const, ...error.rejection };
      for (const member of members) await recordResult(trx, member, 'ACTC', rejection, context.clock());
      return answer(members.map(() => 'RJCT'));
    });
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
  const basket = await findBasket(context.db, request.paymentId);
  if (basket !== undefined) return executeBasket(context, request, basket);
  const { key, print } = oncePerRequest(request, 'execute');
  return answerOnce(context.db, key, print, async (trx) => {
    const locked = await lockPayment(trx, request.paymentId);
    const payment = checkPaymentOfApp(locked, request.paymentId, request.productName, request.app.clientId);
    if (request.grant.psuId !== payment.psuId) {
      throw apiError('TOKEN_INVALID', 'The access token was issued by another PSU');
    }
    const now = awaitsExecution(payment)
      ? await recordResult(
          trx,
          payment,
          'ACTC',
          await context.coreBanking.execute(trx, payment, today(context)),
          context.clock(),
        )
      : payment;
    return { statusCode: 200, body: statusBody(context, now, now.status) };
  });
}
