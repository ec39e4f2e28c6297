// Execute (spec row 12): with the PSU token of this payment, the bank executes it once; executing an
// executed payment answers its status unchanged (API-NOTES "Statuses").
import { apiError, notYours } from '../domain/errors.ts';
import { awaitsExecution, basketStatus } from '../domain/payment.ts';
import { formatResourceScope } from '../domain/scope.ts';
import { fingerprint } from '../domain/secrets.ts';
import type { App } from '../store/apps-repository.ts';
import { type Basket, findBasket, lockBasketPayments } from '../store/baskets-repository.ts';
import { lockPayment, moveStatus } from '../store/payments-repository.ts';
import { type ServiceContext, today } from './context.ts';
import { type Answer, answerOnce } from './idempotency.ts';
import { checkPaymentOfApp, productOfPath } from './payment-access.ts';
import { type PaymentStatusResponse, statusBody } from './status-body.ts';
import { requirePsuToken, type TokenGrant } from './tokens.ts';

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

/** A basket executes all or nothing: if the bank rejects one payment, every payment is rejected. */
async function executeBasket(
  context: ServiceContext,
  request: ExecuteRequest,
  basket: Basket,
): Promise<Answer<BasketStatusResponse>> {
  const key = { clientId: request.app.clientId, requestId: request.requestId };
  const print = fingerprint({
    operation: 'execute',
    product: request.productName,
    paymentId: request.paymentId,
  });
  return answerOnce(context.db, key, print, async (trx) => {
    if (basket.clientId !== request.app.clientId)
      throw notYours(`Basket ${basket.basketId} was not initiated by this app`);
    if (request.grant.psuId !== basket.psuId)
      throw apiError('TOKEN_INVALID', 'The access token was issued by another PSU');
    const members = await lockBasketPayments(trx, basket.basketId);
    const product = productOfPath(request.productName);
    if (!members.some((member) => member.product === product.id)) {
      throw apiError('PRODUCT_INVALID', `Basket ${basket.basketId} holds no ${product.id} payment`);
    }
    let statuses = members.map((member) => member.status);
    if (members.every(awaitsExecution)) {
      const date = today(context);
      const results = [];
      for (const member of members) results.push(await context.coreBanking.execute(trx, member, date));
      const rejected = results.some((result) => result.status === 'RJCT');
      statuses = results.map((result) => (rejected ? 'RJCT' : result.status));
      const at = context.clock();
      for (const [index, member] of members.entries()) {
        if (!(await moveStatus(trx, member.id, 'ACTC', statuses[index]!, at))) {
          throw new Error(`payment ${member.id} left ACTC while locked`);
        }
      }
    } else if (members.some(awaitsExecution)) {
      throw new Error(`basket ${basket.basketId} is partly executed`);
    }
    return {
      statusCode: 200,
      body: { signingBasketId: basket.basketId, transactionStatus: basketStatus(statuses) },
    };
  });
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
  const key = { clientId: request.app.clientId, requestId: request.requestId };
  const print = fingerprint({
    operation: 'execute',
    product: request.productName,
    paymentId: request.paymentId,
  });
  return answerOnce(context.db, key, print, async (trx) => {
    const locked = await lockPayment(trx, request.paymentId);
    const payment = checkPaymentOfApp(locked, request.paymentId, request.productName, request.app.clientId);
    if (request.grant.psuId !== payment.psuId) {
      throw apiError('TOKEN_INVALID', 'The access token was issued by another PSU');
    }
    let status = payment.status;
    if (awaitsExecution(payment)) {
      const result = await context.coreBanking.execute(trx, payment, today(context));
      if (!(await moveStatus(trx, payment.id, 'ACTC', result.status, context.clock()))) {
        throw new Error(`payment ${payment.id} left ACTC while locked`);
      }
      status = result.status;
    }
    const at = status === payment.status ? payment : { ...payment, executedAt: context.clock() };
    return { statusCode: 200, body: statusBody(context, at, status) };
  });
}
