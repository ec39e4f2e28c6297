// FX_RATES=none: a gateway without a rate source. A currency against itself is still 1; every other
// quote is refused, so that what needs a conversion is refused rather than converted at a guess.
import type { ExchangeRates } from '../../ports/exchange-rates.ts';
import { sameCurrency } from './rate-table.ts';

export const noRates: ExchangeRates = {
  quote(sourceCurrency, targetCurrency, date) {
    if (sourceCurrency === targetCurrency) return sameCurrency(sourceCurrency, date);
    throw new RangeError(
      `no exchange rate for ${sourceCurrency}/${targetCurrency}: the gateway has no rate source (FX_RATES=none)`,
    );
  },
};
