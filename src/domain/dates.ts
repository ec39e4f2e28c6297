// Calendar dates as ISO text (YYYY-MM-DD). "Today" is the bank's date in its own time zone.

const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

export function isIsoDate(text: string): boolean {
  const match = ISO_DATE.exec(text);
  if (match === null) return false;
  const date = new Date(Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3])));
  return date.toISOString().slice(0, 10) === text;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

/** A formatter of a time zone, made once: `en-CA` dates read YYYY-MM-DD, `en-US` parts are numbers. */
function formatterOf(locale: 'en-CA' | 'en-US', timeZone: string, clock: boolean): Intl.DateTimeFormat {
  const key = `${locale} ${timeZone}`;
  let formatter = formatters.get(key);
  if (formatter === undefined) {
    const day = { year: 'numeric', month: '2-digit', day: '2-digit' } as const;
    const time = { hourCycle: 'h23', hour: 'numeric', minute: 'numeric', second: 'numeric' } as const;
    formatter = new Intl.DateTimeFormat(locale, { timeZone, ...day, ...(clock ? time : {}) });
    formatters.set(key, formatter);
  }
  return formatter;
}

/** The last answer per time zone: formatting costs more than a request's other date work. */
const lastDates = new Map<string, { readonly minute: number; readonly date: string }>();

/**
 * The calendar date of an instant in a time zone. Every time zone's offset is whole minutes, so the
 * date changes only at the start of a minute: the answer is kept for the minute.
 */
export function dateIn(instant: Date, timeZone: string): string {
  const minute = Math.floor(instant.getTime() / 60_000);
  const last = lastDates.get(timeZone);
  if (last !== undefined && last.minute === minute) return last.date;
  const date = formatterOf('en-CA', timeZone, false).format(instant);
  lastDates.set(timeZone, { minute, date });
  return date;
}

/**
 * The instant a calendar date begins in a time zone: its midnight there. The zone's offset is read at
 * UTC's midnight, then again at the instant that gives, in case the offset changed in between; where a
 * zone skips its midnight (Santiago in September), the day begins where the clock jumps.
 */
export function startOfDay(isoDate: string, timeZone: string): Date {
  const midnightUtc = Date.parse(`${isoDate}T00:00:00Z`);
  const first = new Date(midnightUtc - offsetAt(midnightUtc, timeZone));
  const second = new Date(midnightUtc - offsetAt(first.getTime(), timeZone));
  return dateIn(second, timeZone) === isoDate ? second : first;
}

/** The last calendar date (in a time zone) before an instant: the day that ends there. */
export function dayBefore(instant: Date, timeZone: string): string {
  return dateIn(new Date(instant.getTime() - 1), timeZone);
}

/** How far a time zone's wall clock is ahead of UTC at an instant, in milliseconds. */
function offsetAt(time: number, timeZone: string): number {
  const part = Object.fromEntries(
    formatterOf('en-US', timeZone, true)
      .formatToParts(new Date(time))
      .map((each) => [each.type, Number(each.value)]),
  ) as Record<string, number>;
  const wall = Date.UTC(part.year!, part.month! - 1, part.day!, part.hour!, part.minute!, part.second!);
  return wall - Math.floor(time / 1000) * 1000;
}

export function addDays(isoDate: string, days: number): string {
  const date = new Date(`${isoDate}T00:00:00Z`);
  date.setUTCDate(date.getUTCDate() + days);
  return date.toISOString().slice(0, 10);
}

export function addMonths(isoDate: string, months: number): string {
  const date = new Date(`${isoDate}T00:00:00Z`);
  date.setUTCMonth(date.getUTCMonth() + months);
  return date.toISOString().slice(0, 10);
}

/** The bank day after a date: weekends skipped (the sandbox's bank knows no holidays). */
export function nextBankDay(isoDate: string): string {
  let day = addDays(isoDate, 1);
  // At most two weekend days to skip.
  for (let step = 0; step < 2 && [0, 6].includes(new Date(`${day}T00:00:00Z`).getUTCDay()); step += 1) {
    day = addDays(day, 1);
  }
  return day;
}
