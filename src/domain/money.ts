// Money is an integer count of minor units plus an ISO 4217 currency; never a float.
// Amounts cross the API as decimal strings; numbers are accepted on input.

/** ISO 4217 minor units of the currencies the bank pays in. */
const MINOR_UNITS: Readonly<Record<string, number>> = Object.freeze({
  SEK: 2,
  EUR: 2,
  GBP: 2,
  USD: 2,
  NOK: 2,
  DKK: 2,
  CHF: 2,
  PLN: 2,
  CAD: 2,
  AUD: 2,
  JPY: 0,
});

/** Largest amount accepted in a payment, in major units (a guard against absurd input). */
const MAX_MAJOR_DIGITS = 12;

export interface Money {
  readonly currency: string;
  /** Integer count of minor units (öre, cents, pence). */
  readonly minor: number;
}

export function isKnownCurrency(currency: string): boolean {
  return Object.hasOwn(MINOR_UNITS, currency);
}

function minorUnits(currency: string): number {
  const units = MINOR_UNITS[currency];
  if (units === undefined) throw new RangeError(`unknown currency ${currency}`);
  return units;
}

export type AmountResult = { ok: true; money: Money } | { ok: false; reason: string };

/** Parses a positive decimal amount given as a string ("12.50") or a number (12.5). */
export function parseAmount(input: string | number, currency: string): AmountResult {
  if (!isKnownCurrency(currency)) return { ok: false, reason: 'is in a currency that is not supported' };
  let text: string;
  if (typeof input === 'number') {
    if (!Number.isFinite(input)) return { ok: false, reason: 'must be a finite number' };
    // String() gives the shortest text that reads back as the same double: 0.1 -> "0.1", 1e21 -> "1e+21".
    text = String(input);
  } else {
    text = input;
  }
  const match = /^(\d+)(?:\.(\d+))?$/.exec(text);
  if (match === null) return { ok: false, reason: 'must be a positive decimal amount such as "125.50"' };
  const whole = match[1]!.replace(/^0+(?=\d)/, '');
  const fraction = match[2] ?? '';
  const digits = minorUnits(currency);
  if (fraction.length > digits) {
    return {
      ok: false,
      reason: digits === 0 ? `${currency} takes no decimals` : `${currency} takes at most ${digits} decimals`,
    };
  }
  if (whole.length > MAX_MAJOR_DIGITS)
    return { ok: false, reason: `must have at most ${MAX_MAJOR_DIGITS} digits before the decimal point` };
  const minor = Number(whole + fraction.padEnd(digits, '0'));
  if (minor <= 0) return { ok: false, reason: 'must be greater than zero' };
  return { ok: true, money: { currency, minor } };
}

/** The decimal text of an amount, with exactly the currency's number of decimals. */
export function formatAmount(money: Money): string {
  const digits = minorUnits(money.currency);
  if (digits === 0) return String(money.minor);
  const sign = money.minor < 0 ? '-' : '';
  const text = String(Math.abs(money.minor)).padStart(digits + 1, '0');
  return `${sign}${text.slice(0, -digits)}.${text.slice(-digits)}`;
}

/** An exchange between two currencies, as the status of a cross-currency payment shows it. */
export interface CurrencyExchange {
  readonly sourceCurrency: string;
  readonly targetCurrency: string;
  /** Units of the source currency for one unit of the target currency, as a decimal string. */
  readonly exchangeRate: string;
  readonly quotationDate: string;
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
