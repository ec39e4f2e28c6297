// Calendar dates as ISO text (YYYY-MM-DD). "Today" is the bank's date in its own time zone.

const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

export function isIsoDate(text: string): boolean {
  const match = ISO_DATE.exec(text);
  if (match === null) return false;
  const date = new Date(Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3])));
  return date.toISOString().slice(0, 10) === text;
}

const formatters = new Map<string, Intl.DateTimeFormat>();
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
  let formatter = formatters.get(timeZone);
  if (formatter === undefined) {
    // en-CA formats as YYYY-MM-DD.
    formatter = new Intl.DateTimeFormat('en-CA', {
      timeZone,
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
    });
    formatters.set(timeZone, formatter);
  }
  const date = formatter.format(instant);
  lastDates.set(timeZone, { minute, date });
  return date;
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
