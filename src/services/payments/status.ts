// Status (spec row 13): readable with the app's client-credentials token or the PSU token of the payment.
import { apiError } from '../../domain/errors.ts';
import { isFinal, type Payment } from '../../domain/payment.ts';
import type { Country } from '../../domain/products.ts';
import type { App } from '../../store/apps-repository.ts';
import { findPayment } from '../../store/payments-repository.ts';
import type { TokenGrant } from '../access/tokens.ts';
import type { ServiceContext } from '../shared/context.ts';
import { checkPaymentOfApp, productOfPath, requireReader } from './payment-access.ts';
import { type PaymentStatusResponse, statusBody } from './status-body.ts';

export interface StatusRequest {
  readonly app: App;
  readonly grant: TokenGrant;
  readonly productName: string;
  readonly paymentId: string;
  readonly country: Country;
}

export async function readPaymentStatus(
  context: ServiceContext,
  request: StatusRequest,
): Promise<PaymentStatusResponse> {
  productOfPath(request.productName);
  const found = await paymentForStatus(context, request.paymentId);
  requireReader(request.grant, request.app.clientId, request.paymentId, found);
  const payment = checkPaymentOfApp(found, request.paymentId, request.productName, request.app.clientId);
  if (payment.country !== request.country) {
    throw apiError(
      'FORMAT_ERROR',
      `Payment ${payment.id} was initiated for ${payment.country}, not ${request.country}`,
      'Country',
    );
  }
  return statusBody(context, payment, payment.status);
}

/** A payment in a final status never changes again: it is read from the database once. */
async function paymentForStatus(context: ServiceContext, paymentId: string): Promise<Payment | undefined> {
  const cached = context.caches.finalPayments.get(paymentId);
  if (cached !== undefined) return cached;
  const payment = await findPayment(context.db, paymentId);
  if (payment !== undefined && isFinal(payment.status)) context.caches.finalPayments.set(paymentId, payment);
  return payment;
}
