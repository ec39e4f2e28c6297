// Status (spec row 13): readable with the app's client-credentials token or the PSU token of the
// payment. The answer of execute and status alike: the payment id and status, the reason of a
// rejection, and for a cross-currency payment the exchange between the debtor account's currency and
// the instructed one (issue 5).
import type { App } from '../../domain/apps.ts';
import { apiError } from '../../domain/errors.ts';
import { isFinal, type PaymentStatusView } from '../../domain/payment.ts';
import type { Country, ProductDefinition } from '../../domain/products.ts';
import { findBasket, listBasketPayments } from '../../store/baskets-repository.ts';
import { findPaymentStatus } from '../../store/payments/reads.ts';
import type { TokenGrant } from '../access/tokens.ts';
import type { ServiceContext } from '../shared/context.ts';
import { checkPaymentOfApp, noSuchPayment, productOfPath, requireReader } from './payment-access.ts';
import {
  type BasketStatusResponse,
  basketMembersOf,
  basketStatusBody,
  type PaymentStatusResponse,
  statusBody,
} from './status-body.ts';

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
): Promise<PaymentStatusResponse | BasketStatusResponse> {
  const product = productOfPath(request.productName);
  const found = await paymentForStatus(context, request.paymentId);
  // A signing basket's id reads the basket's status, as its execution answers it (API-NOTES: execute
  // and status use the general paths); only an id no payment has is looked for among the baskets.
  if (found === undefined) {
    const basket = await findBasket(context.db, request.paymentId);
    if (basket !== undefined)
      return readBasketStatus(context, request, basket.basketId, basket.clientId, product);
  }
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

async function readBasketStatus(
  context: ServiceContext,
  request: StatusRequest,
  basketId: string,
  clientId: string,
  product: ProductDefinition,
): Promise<BasketStatusResponse> {
  if (clientId !== request.app.clientId) throw noSuchPayment();
  // The client-credentials token, or the PSU token of the basket (PIS:<basketId>).
  requireReader(request.grant, request.app.clientId, basketId, undefined);
  if (request.country !== 'SE') {
    throw apiError(
      'FORMAT_ERROR',
      `Basket ${basketId} was initiated for SE, not ${request.country}`,
      'Country',
    );
  }
  const members = basketMembersOf(basketId, await listBasketPayments(context.db, basketId), product);
  return basketStatusBody(basketId, members);
}

/**
 * A payment in a final status never changes again: it is read from the database once, and may be
 * read from a standby (context.readDb). Any other status may have moved since the standby's copy (an
 * execution just answered to this very caller): the primary says it.
 */
async function paymentForStatus(
  context: ServiceContext,
  paymentId: string,
): Promise<PaymentStatusView | undefined> {
  const cached = context.caches.finalPayments.get(paymentId);
  if (cached !== undefined) return cached;
  const standby =
    context.readDb === context.db ? undefined : await findPaymentStatus(context.readDb, paymentId);
  const payment =
    standby !== undefined && isFinal(standby.status)
      ? standby
      : await findPaymentStatus(context.db, paymentId);
  if (payment !== undefined && isFinal(payment.status)) context.caches.finalPayments.set(paymentId, payment);
  return payment;
}
