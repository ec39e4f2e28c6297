// What a payment's status answers (GET .../status, and the execution's answer): the status, the
// rejection reason and, for a cross-currency payment, the exchange rate. Its own file, so that the
// execution use case answers with it without importing the status use case (status.ts).
import { dateIn } from '../../domain/dates.ts';
import type { CurrencyExchange } from '../../domain/money.ts';
import type { PaymentStatusView, TransactionStatus } from '../../domain/payment.ts';
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
