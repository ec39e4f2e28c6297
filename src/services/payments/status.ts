// Status (spec row 13): readable with the app's client-credentials token or the PSU token of the
// payment. The answer of execute and status alike: the payment id and status, the reason of a
// rejection, and for a cross-currency payment the exchange between the debtor account's currency and
// the instructed one (issue 5).
import type { App } from '../../domain/apps.ts';
import { apiError } from '../../domain/errors.ts';
import { isFinal, type PaymentStatusView } from '../../domain/payment.ts';
import type { Country } from '../../domain/products.ts';
import { findPaymentStatus } from '../../store/payments/reads.ts';
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
  // Whose it is first: the token's scope names the payment's basket, which another app must not learn.
  const payment = checkPaymentOfApp(found, request.paymentId, request.productName, request.app.clientId);
  requireReader(request.grant, request.app.clientId, request.paymentId, payment);
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
async function paymentForStatus(
  context: ServiceContext,
  paymentId: string,
): Promise<PaymentStatusView | undefined> {
  const cached = context.caches.finalPayments.get(paymentId);
  if (cached !== undefined) return cached;
  const payment = await findPaymentStatus(context.db, paymentId);
  if (payment !== undefined && isFinal(payment.status)) context.caches.finalPayments.set(paymentId, payment);
  return payment;
}
