// Finding a payment for an execute or status call: the product in the path must be the payment's
// (either spelling of other-bank), the payment must be this app's; another app's payment or basket
// answers as an unknown id does.
import { ApiError, apiError, unknownResource } from '../../domain/errors.ts';
import type { Payment } from '../../domain/payment.ts';
import { findProduct } from '../../domain/products.ts';
import { formatResourceScope } from '../../domain/scope.ts';
import { requireClientToken, requirePsuToken, type TokenGrant } from '../access/tokens.ts';
import type { KeyedRequest } from '../shared/idempotency.ts';

export function productOfPath(name: string) {
  const product = findProduct(name);
  if (product === undefined)
    throw apiError('PRODUCT_UNKNOWN', 'The path names no payment product of the bank', 'paymentProduct');
  return product;
}

export function checkPaymentOfApp<P extends Pick<Payment, 'clientId' | 'product'>>(
  payment: P | undefined,
  paymentId: string,
  productName: string,
  clientId: string,
): P {
  const product = productOfPath(productName);
  if (payment === undefined || payment.clientId !== clientId) throw noSuchPayment();
  if (payment.product !== product.id) {
    throw new ApiError({
      code: 'PRODUCT_INVALID',
      text: `Payment ${paymentId} was initiated as ${payment.product}`,
    });
  }
  return payment;
}

/** The answer to an unknown payment or basket id, and to another app's. */
export function noSuchPayment() {
  return unknownResource('There is no payment with this paymentId', 'paymentId');
}

/**
 * Status and cancel take the app's client-credentials token, or the PSU token of the payment, or of
 * the signing basket the payment belongs to.
 */
export function requireReader(
  grant: TokenGrant,
  clientId: string,
  paymentId: string,
  payment: Pick<Payment, 'basketId'> | undefined,
): void {
  if (grant.kind === 'client_credentials') {
    requireClientToken(grant, clientId);
    return;
  }
  const resourceId = payment?.basketId ?? paymentId;
  requirePsuToken(grant, clientId, formatResourceScope({ service: 'PIS', resourceId }));
}

/** An execute or cancel call as its Idempotency-Key sees it: a retry names the same payment (or basket). */
export function keyedOn(
  request: {
    readonly app: { readonly clientId: string };
    readonly idempotencyKey: string | undefined;
    readonly productName: string;
    readonly paymentId: string;
  },
  operation: 'execute' | 'cancel',
): KeyedRequest {
  return {
    clientId: request.app.clientId,
    operation,
    key: request.idempotencyKey,
    request: { product: request.productName, paymentId: request.paymentId },
  };
}
