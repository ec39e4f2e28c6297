// Execute (spec row 12): with the PSU token of this payment, the bank executes it once; executing an
// executed payment answers its status unchanged (API-NOTES "Statuses").
import { apiError } from '../domain/errors.ts';
import { awaitsExecution } from '../domain/payment.ts';
import { formatResourceScope } from '../domain/scope.ts';
import { fingerprint } from '../domain/secrets.ts';
import type { App } from '../store/apps-repository.ts';
import { lockPayment, markExecuted } from '../store/payments-repository.ts';
import { type ServiceContext, today } from './context.ts';
import { type Answer, answerOnce } from './idempotency.ts';
import { checkPaymentOfApp, productOfPath } from './payment-access.ts';
import { requirePsuToken, type TokenGrant } from './tokens.ts';

export interface ExecuteRequest {
  readonly app: App;
  readonly grant: TokenGrant;
  readonly requestId: string;
  readonly productName: string;
  readonly paymentId: string;
}

export interface PaymentStatusResponse {
  readonly paymentId: string;
  readonly transactionStatus: string;
}

export async function executePayment(
  context: ServiceContext,
  request: ExecuteRequest,
): Promise<Answer<PaymentStatusResponse>> {
  productOfPath(request.productName);
  requirePsuToken(
    request.grant,
    request.app.clientId,
    formatResourceScope({ service: 'PIS', resourceId: request.paymentId }),
  );
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
      if (!(await markExecuted(trx, payment.id, result.status, context.clock()))) {
        throw new Error(`payment ${payment.id} left ACTC while locked`);
      }
      status = result.status;
    }
    return { statusCode: 200, body: { paymentId: payment.id, transactionStatus: status } };
  });
}
