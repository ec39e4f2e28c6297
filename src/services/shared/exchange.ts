// The bank's rate between two currencies, for every context that converts: the exchange on a date, or
// undefined where the bank has none (the ExchangeRates port throws RangeError: no rate source, a day
// before the source's first, a currency it does not list).
import type { CurrencyExchange } from '../../domain/money.ts';
import type { ServiceContext } from './context.ts';

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
