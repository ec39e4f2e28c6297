// The port to the bank's exchange rates. The sandbox's fixed mid rates (src/adapters/sandbox-rates.ts)
// are one implementation; a bank plugs in its own rate source.
import type { CurrencyExchange } from '../domain/money.ts';

export interface ExchangeRates {
  /** The rate on a date: units of the source currency for one unit of the target; throws RangeError without one. */
  quote(sourceCurrency: string, targetCurrency: string, date: string): CurrencyExchange;
}
