// DELETE of a payment (API-NOTES "Statuses": CANC, beyond the spec), as domain/payment.ts `cancellable`
// allows: a payment not yet executed, or executed with a later date and waiting for it (ACCP).
import type { App } from '../../domain/apps.ts';
import type { AuditActor } from '../../domain/audit.ts';
import { apiError } from '../../domain/errors.ts';
import { cancellable, nextStatus } from '../../domain/payment.ts';
import { lockPayment } from '../../store/payments/locks.ts';
import { moveStatus } from '../../store/payments/moves.ts';
import type { TokenGrant } from '../access/tokens.ts';
import { type ServiceContext, today } from '../shared/context.ts';
import { type Answer, answerOnce } from '../shared/idempotency.ts';
import { checkPaymentOfApp, keyedOn, productOfPath, requireReader } from './payment-access.ts';
import type { PaymentStatusResponse } from './status-body.ts';

export interface CancelRequest {
  readonly app: App;
  readonly grant: TokenGrant;
  /** The Idempotency-Key header, if sent. */
  readonly idempotencyKey: string | undefined;
  readonly productName: string;
  readonly paymentId: string;
  /** Who calls, for the audit record of the move. */
  readonly actor?: AuditActor;
}

export async function cancelPayment(
  context: ServiceContext,
  request: CancelRequest,
): Promise<Answer<PaymentStatusResponse>> {
  productOfPath(request.productName);
  let cancelled: string | undefined;
  const count = () => {
    if (cancelled !== undefined) context.metrics.paymentStatus(cancelled, 'CANC');
  };
  return answerOnce(
    context,
    keyedOn(request, 'cancel'),
    async (trx) => {
      const locked = await lockPayment(trx, request.paymentId);
      const payment = checkPaymentOfApp(locked, request.paymentId, request.productName, request.app.clientId);
      requireReader(request.grant, request.app.clientId, request.paymentId, payment);
      if (payment.basketId !== null) {
        throw apiError(
          'CANCELLATION_INVALID',
          `payment ${payment.id} is part of signing basket ${payment.basketId}`,
        );
      }
      if (cancellable(payment, today(context))) {
        const to = nextStatus(payment, { type: 'cancelled' });
        const mover = { by: 'tpp', actor: request.actor ?? {} } as const;
        if (!(await moveStatus(trx, payment.id, payment.status, to, context.clock(), mover))) {
          throw new Error(`payment ${payment.id} changed while locked`);
        }
        cancelled = payment.product;
      } else if (payment.status !== 'CANC') {
        const why = payment.booking !== null ? 'being booked' : payment.status;
        throw apiError(
          'CANCELLATION_INVALID',
          `payment ${payment.id} is ${why} and can no longer be cancelled`,
        );
      }
      return { statusCode: 200, body: { paymentId: payment.id, transactionStatus: 'CANC' } };
    },
    count,
  );
}
