// Status (spec row 13): readable with the app's client-credentials token or the PSU token of the
// payment. The answer of execute and status alike: the payment id and status, the reason of a
// rejection, and for a cross-currency payment the exchange between the debtor account's currency and
// the instructed one (issue 5).
import type { App } from '../../domain/apps.ts';
import { dateIn } from '../../domain/dates.ts';
import { apiError } from '../../domain/errors.ts';
import type { CurrencyExchange } from '../../domain/money.ts';
import { isFinal, type PaymentStatusView, type TransactionStatus } from '../../domain/payment.ts';
import type { Country } from '../../domain/products.ts';
import { findPaymentStatus } from '../../store/payments/reads.ts';
import type { TokenGrant } from '../access/tokens.ts';
import { type ServiceContext, today } from '../shared/context.ts';
import { exchangeOn } from '../shared/exchange.ts';
import { checkPaymentOfApp, productOfPath, requireReader } from './payment-access.ts';

export interface StatusRequest {
  readonly app: App;
  readonly grant: TokenGrant;
  readonly productName: string;
  readonly paymentId: string;
  readonly country: Country;
}

export interface PaymentStatusResponse {
  readonly paymentId: string;
  readonly transactionStatus: string;
  readonly currencyExchange?: CurrencyExchange;
  /** RJCT only (API-NOTES "Statuses"). */
  readonly reasonCode?: string;
  readonly reason?: string;
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

/** A payment whose debtor account is in another currency, when the bank has no rate for the two today. */
export function noExchangeToday(
  context: ServiceContext,
  accountCurrency: string,
  paymentCurrency: string,
): boolean {
  return (
    accountCurrency !== paymentCurrency &&
    exchangeOn(context, accountCurrency, paymentCurrency, today(context)) === undefined
  );
}
