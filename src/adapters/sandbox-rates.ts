// Exchange rates of the sandbox: fixed mid rates against the Swedish krona, six decimals.
import type { ExchangeRates } from '../ports/exchange-rates.ts';

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

export const sandboxRates: ExchangeRates = {
  quote(sourceCurrency, targetCurrency, quotationDate) {
    const source = SEK_PER_UNIT[sourceCurrency];
    const target = SEK_PER_UNIT[targetCurrency];
    if (source === undefined || target === undefined)
      throw new RangeError(`no rate for ${sourceCurrency}/${targetCurrency}`);
    return { sourceCurrency, targetCurrency, exchangeRate: (target / source).toFixed(6), quotationDate };
  },
};
