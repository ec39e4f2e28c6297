// Exchange rates from the ECB's euro reference-rate XML, read from a file or an address (FX_RATES) at
// start and again on a schedule (FX_RATES_REFRESH_MS). A source that cannot be read or is not the format
// stops the start; a refresh that fails keeps the last good rates and is reported, never thrown.
import type { Clock } from '../../domain/clock.ts';
import { isIsoDate } from '../../domain/dates.ts';
import type { CurrencyExchange } from '../../domain/money.ts';
import type { ExchangeRates } from '../../ports/exchange-rates.ts';
import { parseEcbXml, RateFormatError } from './ecb-xml.ts';
import { checkSource, type RateSource, readSource, sourceName } from './rate-source.ts';
import { quoteFrom, type RateTable, sameCurrency } from './rate-table.ts';

export interface LoadedRatesOptions {
  readonly source: RateSource;
  /** How often the source is read again, ms. */
  readonly refreshMs: number;
  /** When rates were loaded (state().loadedAt). */
  readonly clock?: Clock;
  /** A refresh failed (the last good rates stay); the error names FX_RATES, the source and the fault. */
  readonly onRefreshError?: (error: Error) => void;
  /** A refresh succeeded: the rates now in use. */
  readonly onRefresh?: (state: LoadedRatesState) => void;
}

/** What the rates in use are, for logs and health checks. */
export interface LoadedRatesState {
  readonly firstDay: string;
  readonly lastDay: string;
  readonly loadedAt: Date;
}

export interface LoadedRates extends ExchangeRates {
  state(): LoadedRatesState;
  /** Stops the refreshes (and a fetch under way). */
  close(): void;
}

/**
 * Loads the rates once, then keeps them fresh. Throws an Error whose message begins "FX_RATES <source>"
 * and says what is wrong: it cannot be read, it is not the ECB format, it lists no rates, a rate is not a
 * positive number.
 */
export async function loadedRates(options: LoadedRatesOptions): Promise<LoadedRates> {
  const { source, refreshMs } = options;
  if (!Number.isInteger(refreshMs) || refreshMs < 1 || refreshMs > 2 ** 31 - 1)
    throw new RangeError(`FX_RATES_REFRESH_MS ${refreshMs} is not a whole number of milliseconds`);
  checkSource(source);
  const clock = options.clock ?? (() => new Date());
  const inFlight = new AbortController();
  let loaded = await loadTable(source, inFlight.signal, undefined);
  let loadedAt = clock();
  let refreshing = false;

  const state = (): LoadedRatesState => ({
    firstDay: loaded.table[0]!.date,
    lastDay: loaded.table[loaded.table.length - 1]!.date,
    loadedAt,
  });

  async function refresh(): Promise<void> {
    // A slow source is not asked twice at once.
    if (refreshing) return;
    refreshing = true;
    try {
      loaded = await loadTable(source, inFlight.signal, loaded);
      loadedAt = clock();
      report(() => options.onRefresh?.(state()));
    } catch (error) {
      if (!inFlight.signal.aborted) report(() => options.onRefreshError?.(error as Error));
    } finally {
      refreshing = false;
    }
  }
  const timer = setInterval(() => void refresh(), refreshMs);
  timer.unref();

  return {
    quote(sourceCurrency: string, targetCurrency: string, date: string): CurrencyExchange {
      if (!isIsoDate(date)) throw new RangeError(`no exchange rate on "${date}": not a date (YYYY-MM-DD)`);
      if (sourceCurrency === targetCurrency) return sameCurrency(sourceCurrency, date);
      return quoteFrom(loaded.table, sourceCurrency, targetCurrency, date);
    },
    state,
    close() {
      clearInterval(timer);
      inFlight.abort();
    },
  };
}

interface Loaded {
  readonly text: string;
  readonly table: RateTable;
}

/** The source's rates; the same text as before is not parsed again (the whole history takes a second). */
async function loadTable(
  source: RateSource,
  signal: AbortSignal,
  before: Loaded | undefined,
): Promise<Loaded> {
  let text: string;
  try {
    text = await readSource(source, signal);
  } catch (error) {
    throw new Error(`FX_RATES ${sourceName(source)} cannot be read: ${(error as Error).message}`, {
      cause: error,
    });
  }
  if (text === before?.text) return before;
  try {
    return { text, table: parseEcbXml(text) };
  } catch (error) {
    const problem =
      error instanceof RateFormatError ? error.message : `cannot be parsed: ${(error as Error).message}`;
    throw new Error(`FX_RATES ${sourceName(source)} ${problem}`, { cause: error });
  }
}

/** A listener's own failure must not escape a timer into the process. */
function report(notify: () => void): void {
  try {
    notify();
  } catch {
    // Nothing to tell: the listener is the channel that failed.
  }
}
