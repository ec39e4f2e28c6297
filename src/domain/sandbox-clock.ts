// The sandbox clock of an app: real time plus an offset the TPP advances (POST /sandbox/clock), written
// as an ISO 8601 duration of days, hours and minutes. Pure: parsing, bounds and formatting.

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;
const DAY_MS = 24 * HOUR_MS;

/** The most one call may advance (P400D), and the most an app's clock may be ahead of real time (P1000D). */
const MAX_ADVANCE_MS = 400 * DAY_MS;
export const MAX_OFFSET_MS = 1000 * DAY_MS;

/** Days, hours and minutes, at least one of them, each at most four digits: P2D, PT36H, P1DT2H30M. */
const DURATION = /^P(?:(\d{1,4})D)?(?:T(?:(\d{1,4})H)?(?:(\d{1,4})M)?)?$/;

/**
 * An advance as the TPP writes it, in milliseconds; undefined when it is no duration of days, hours and
 * minutes, or is zero, or beyond MAX_ADVANCE_MS.
 */
export function parseAdvance(text: string): number | undefined {
  const match = DURATION.exec(text);
  if (match === null || text.endsWith('T')) return undefined;
  const [, days, hours, minutes] = match;
  if (days === undefined && hours === undefined && minutes === undefined) return undefined;
  const ms = Number(days ?? 0) * DAY_MS + Number(hours ?? 0) * HOUR_MS + Number(minutes ?? 0) * MINUTE_MS;
  return ms > 0 && ms <= MAX_ADVANCE_MS ? ms : undefined;
}

/** An offset as an ISO 8601 duration of days, hours and minutes (seconds dropped): PT0S when none. */
export function formatOffset(ms: number): string {
  const minutesInAll = Math.floor(ms / MINUTE_MS);
  const days = Math.floor(minutesInAll / (24 * 60));
  const hours = Math.floor((minutesInAll % (24 * 60)) / 60);
  const minutes = minutesInAll % 60;
  if (days === 0 && hours === 0 && minutes === 0) return 'PT0S';
  const time = `${hours > 0 ? `${hours}H` : ''}${minutes > 0 ? `${minutes}M` : ''}`;
  return `P${days > 0 ? `${days}D` : ''}${time === '' ? '' : `T${time}`}`;
}
