// The port to the bank's exchange rates. The built-in table holds fixed sandbox mid rates; a bank
// plugs in its own rate source.
import { type Money, minorUnits } from '../domain/money.ts';

/** Swedish kronor per unit of each currency (sandbox mid rates). */
const SEK_PER_UNIT: Readonly<Record<string, number>> = Object.freeze({
  SEK: 1,
  EUR: 11.45,
  GBP: 13.2,
  USD: 10.6,
  NOK: 0.97,
  DKK: 1.535,
  CHF: 12.1,
  PLN: 2.65,
  CAD: 7.7,
  AUD: 6.95,
  JPY: 0.071,
});

export interface CurrencyExchange {
  readonly sourceCurrency: string;
  readonly targetCurrency: string;
  /** Units of the source currency for one unit of the target currency, as a decimal string. */
  readonly exchangeRate: string;
  readonly quotationDate: string;
}

/** The sandbox rate between two currencies, six decimals. */
export function sandboxExchange(
  sourceCurrency: string,
  targetCurrency: string,
  quotationDate: string,
): CurrencyExchange {
  const source = SEK_PER_UNIT[sourceCurrency];
  const target = SEK_PER_UNIT[targetCurrency];
  if (source === undefined || target === undefined)
    throw new RangeError(`no rate for ${sourceCurrency}/${targetCurrency}`);
  return { sourceCurrency, targetCurrency, exchangeRate: (target / source).toFixed(6), quotationDate };
}

/** An amount converted at a rate, rounded half up to the minor units of the source currency. */
export function convert(amount: Money, exchange: CurrencyExchange): Money {
  const major = amount.minor / 10 ** minorUnits(amount.currency);
  const converted = major * Number(exchange.exchangeRate);
  return {
    currency: exchange.sourceCurrency,
    minor: Math.round(converted * 10 ** minorUnits(exchange.sourceCurrency)),
  };
}
