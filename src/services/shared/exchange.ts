// The bank's rate between two currencies, for every context that converts: the exchange on a date, or
// undefined where the bank has none (the ExchangeRates port throws RangeError: no rate source, a day
// before the source's first, a currency it does not list).
import type { CurrencyExchange } from '../../domain/money.ts';
import { type ServiceContext, today } from './context.ts';

export function exchangeOn(
  context: ServiceContext,
  sourceCurrency: string,
  targetCurrency: string,
  date: string,
): CurrencyExchange | undefined {
  try {
    return context.rates.quote(sourceCurrency, targetCurrency, date);
  } catch (error) {
    if (error instanceof RangeError) return undefined;
    throw error;
  }
}

/**
 * A payment whose debtor account is in another currency, when the bank has no rate for the two today:
 * initiation refuses it and execution leaves it waiting.
 */
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
