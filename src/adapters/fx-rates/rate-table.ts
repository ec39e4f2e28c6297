// Euro reference rates by day, and the quotes they give. Rates stay exact decimals (as published) and
// a cross rate is computed in integers, so that no quote depends on binary floating point.
import type { CurrencyExchange } from '../../domain/money.ts';

/** A positive decimal as published: `digits` × 10^-`scale` (1.0866 is 10866n, scale 4). */
export interface Decimal {
  readonly digits: bigint;
  readonly scale: number;
}

/** One published day: units of each currency for one euro. */
export interface RateDay {
  readonly date: string;
  readonly perEuro: ReadonlyMap<string, Decimal>;
}

/** The days of a source, oldest first, none twice. */
export type RateTable = readonly RateDay[];

/** A quote has six decimals, more when the rate is below 0.1, so that it keeps six significant digits. */
const DECIMALS = 6;
const SIGNIFICANT = 6;

const DECIMAL = /^(\d+)(?:\.(\d+))?$/;

/** A positive decimal written as digits with an optional fraction; undefined for anything else. */
export function parseDecimal(text: string): Decimal | undefined {
  const match = DECIMAL.exec(text);
  if (match === null) return undefined;
  const fraction = match[2] ?? '';
  const digits = BigInt(match[1]! + fraction);
  return digits > 0n ? { digits, scale: fraction.length } : undefined;
}

/** The latest day published on or before `date` (a weekend or holiday takes the day before it). */
function dayOn(table: RateTable, date: string): RateDay | undefined {
  // Binary search: the whole history since 1999 is some 6,500 days, and a status asks on every read.
  let low = 0;
  let high = table.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (table[middle]!.date <= date) low = middle + 1;
    else high = middle;
  }
  return low === 0 ? undefined : table[low - 1];
}

/**
 * The exchange on `date`: units of `source` for one unit of `target`, through the euro (SEK per USD is
 * SEK per euro over USD per euro), rounded half up. The quotation date is the day of the rates used.
 * Throws RangeError when the table has no day on or before `date` or that day lists either currency.
 */
export function quoteFrom(table: RateTable, source: string, target: string, date: string): CurrencyExchange {
  const day = dayOn(table, date);
  if (day === undefined) {
    const first = table[0]?.date;
    throw new RangeError(
      `no exchange rate for ${source}/${target} on ${date}: the rates begin ${first ?? 'nowhere'}`,
    );
  }
  const missing = [source, target].filter((currency) => currency !== 'EUR' && !day.perEuro.has(currency));
  if (missing.length > 0) {
    throw new RangeError(
      `no exchange rate for ${source}/${target} on ${date}: the rates of ${day.date} list no ${missing.join(' or ')}`,
    );
  }
  return {
    sourceCurrency: source,
    targetCurrency: target,
    exchangeRate: divide(perEuro(day, source), perEuro(day, target)),
    quotationDate: day.date,
  };
}

/**
 * A currency against itself: 1, on any date, as the sandbox's rates answer it. Here, not in
 * loaded-rates.ts, so that a gateway without a rate source (no-rates.ts) loads no XML parser.
 */
export function sameCurrency(currency: string, date: string): CurrencyExchange {
  return {
    sourceCurrency: currency,
    targetCurrency: currency,
    exchangeRate: '1.000000',
    quotationDate: date,
  };
}

const ONE: Decimal = { digits: 1n, scale: 0 };

function perEuro(day: RateDay, currency: string): Decimal {
  return currency === 'EUR' ? ONE : day.perEuro.get(currency)!;
}

/** numerator / denominator as decimal text, rounded half up (both are positive). */
export function divide(numerator: Decimal, denominator: Decimal): string {
  // n/d = (n.digits × 10^d.scale) / (d.digits × 10^n.scale)
  const top = numerator.digits * 10n ** BigInt(denominator.scale);
  const bottom = denominator.digits * 10n ** BigInt(numerator.scale);
  const decimals = Math.max(DECIMALS, SIGNIFICANT - 1 - magnitude(top, bottom));
  const scaled = top * 10n ** BigInt(decimals);
  const rounded = (2n * scaled + bottom) / (2n * bottom);
  const text = rounded.toString().padStart(decimals + 1, '0');
  return `${text.slice(0, -decimals)}.${text.slice(-decimals)}`;
}

/** The power of ten of the quotient's leading digit: 2 for 162.45, -3 for 0.00615. */
function magnitude(top: bigint, bottom: bigint): number {
  let power = top.toString().length - bottom.toString().length;
  // 10^power ≤ top/bottom < 10^(power+1), adjusted by one at most.
  if (power >= 0 ? top < bottom * 10n ** BigInt(power) : top * 10n ** BigInt(-power) < bottom) power -= 1;
  return power;
}
