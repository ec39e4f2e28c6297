// What a payment's status answers (GET .../status, and the execution's answer): the status, the
// rejection reason and, for a cross-currency payment, the exchange rate. Its own file, so that the
// execution use case answers with it without importing the status use case (status.ts).

import { basketStatus } from '../../domain/baskets.ts';
import { dateIn } from '../../domain/dates.ts';
import { apiError } from '../../domain/errors.ts';
import type { CurrencyExchange } from '../../domain/money.ts';
import type { Payment, PaymentStatusView, TransactionStatus } from '../../domain/payment.ts';
import type { ProductDefinition } from '../../domain/products.ts';
import { type ServiceContext, today } from '../shared/context.ts';
import { exchangeOn } from '../shared/exchange.ts';

export interface PaymentStatusResponse {
  readonly paymentId: string;
  readonly transactionStatus: string;
  readonly currencyExchange?: CurrencyExchange;
  /** RJCT only (API-NOTES "Statuses"). */
  readonly reasonCode?: string;
  readonly reason?: string;
}

export interface BasketStatusResponse {
  readonly signingBasketId: string;
  readonly transactionStatus: string;
}

/** A basket's payments, when the path's product is one of them (execute and status alike). */
export function basketMembersOf<P extends Pick<Payment, 'product'>>(
  basketId: string,
  members: readonly P[],
  product: ProductDefinition,
): readonly P[] {
  if (!members.some((member) => member.product === product.id)) {
    throw apiError('PRODUCT_INVALID', `Basket ${basketId} holds no ${product.id} payment`);
  }
  return members;
}

/** What a basket's execution and status answer: its least advanced payment's status. */
export function basketStatusBody(
  basketId: string,
  members: readonly Pick<Payment, 'status'>[],
): BasketStatusResponse {
  return {
    signingBasketId: basketId,
    transactionStatus: basketStatus(members.map((member) => member.status)),
  };
}

export function statusBody(
  context: ServiceContext,
  payment: PaymentStatusView,
  status: TransactionStatus,
): PaymentStatusResponse {
  const body = {
    paymentId: payment.id,
    transactionStatus: status,
    ...(status === 'RJCT' && payment.reasonCode !== null
      ? { reasonCode: payment.reasonCode, reason: payment.reason ?? '' }
      : {}),
  };
  if (payment.product !== 'cross-currency-credit-transfer') return body;
  // Quoted on the day of execution; before it, the indicative rate of today.
  const quotationDate =
    payment.executedAt === null ? today(context) : dateIn(payment.executedAt, context.config.timeZone);
  // Without a rate that day (no rate source, a day before the source's first), the status without it.
  const exchange = exchangeOn(context, payment.debtorCurrency, payment.amount.currency, quotationDate);
  return exchange === undefined ? body : Object.assign({}, body, { currencyExchange: exchange });
}
