// Exchange rates from a source (FX_RATES): the ECB's euro reference rates from a file or an address,
// refreshed on a schedule, or none at all (every cross-currency quote refused).
export {
  type LoadedRates,
  type LoadedRatesOptions,
  type LoadedRatesState,
  loadedRates,
} from './loaded-rates.ts';
export { noRates } from './no-rates.ts';
