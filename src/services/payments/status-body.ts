// The answer of execute and status: the payment id and status, and for a cross-currency payment the
// exchange between the debtor account's currency and the instructed one (issue 5).
import { dateIn } from '../../domain/dates.ts';
import type { Payment, TransactionStatus } from '../../domain/payment.ts';
import { type CurrencyExchange, sandboxExchange } from '../../ports/exchange-rates.ts';
import { type ServiceContext, today } from '../shared/context.ts';

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
  payment: Payment,
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
  return {
    ...body,
    currencyExchange: sandboxExchange(payment.debtorCurrency, payment.amount.currency, quotationDate),
  };
}
