// The RTS Art. 32(4) figures from the durable records: per day (midnight to midnight in the bank's
// TIME_ZONE) and for the period, per interface,
// uptime and downtime (EBA/GL/2018/07 2.4: downtime from the probe's runs of five unanswered requests;
// uptime is 100% minus it), requests, average and 95th percentile time, and the rates of 5xx and 503
// answers. A day not over yet is counted up to `now`; time no probe watched is said (unmonitored), not
// counted as down.
import {
  downSpans,
  INTERFACES,
  type InterfaceName,
  overlapMs,
  type ProbeOutcome,
  percentileMs,
  type Span,
  unmonitoredSpans,
} from '../domain/availability.ts';
import { addDays, startOfDay } from '../domain/dates.ts';

export interface Figures {
  readonly interface: InterfaceName;
  readonly seconds: number;
  readonly uptimeSeconds: number;
  readonly downtimeSeconds: number;
  /** null for a window of no time (a day still to come). */
  readonly uptimePercent: number | null;
  readonly downtimePercent: number | null;
  readonly unmonitoredSeconds: number;
  readonly requests: number;
  readonly averageMs: number | null;
  readonly p95Ms: number | null;
  readonly errors5xx: number;
  readonly errors503: number;
  readonly errorRate5xxPercent: number | null;
  readonly errorRate503Percent: number | null;
}

export interface AvailabilityReport {
  readonly from: string;
  readonly to: string;
  /** The days' time zone (TIME_ZONE): a day runs from its midnight there to the next. */
  readonly timeZone: string;
  /** How far a 95th percentile may lie above the true value (log-scale buckets, 2^(1/8)). */
  readonly p95Precision: string;
  readonly days: readonly { readonly date: string; readonly interfaces: readonly Figures[] }[];
  readonly period: readonly Figures[];
}

/** What the store holds for the period (store/availability-repository.ts). */
export interface ReportRecords {
  readonly minutes: readonly {
    interface: string;
    minute: Date;
    requests: number;
    errors5xx: number;
    errors503: number;
    totalMs: number;
  }[];
  readonly latency: readonly { interface: string; minute: Date; bucket: number; answers: number }[];
  /** In time order; from a day before the period, so that a run of failures under way is seen. */
  readonly probes: readonly { interface: string; sentAt: Date; answered: boolean; intervalMs: number }[];
}

const round = (value: number, places: number) => Math.round(value * 10 ** places) / 10 ** places;
const percent = (part: number, whole: number) => (whole === 0 ? null : round((100 * part) / whole, 3));

export function buildReport(
  period: { readonly from: string; readonly to: string; readonly timeZone: string },
  records: ReportRecords,
  now: Date,
): AvailabilityReport {
  const { from, to, timeZone } = period;
  const midnight = (date: string) => startOfDay(date, timeZone).getTime();
  const start = midnight(from);
  const end = midnight(addDays(to, 1));
  const outcomes = new Map<string, ProbeOutcome[]>();
  for (const probe of records.probes) {
    const list = outcomes.get(probe.interface) ?? [];
    list.push({ at: probe.sentAt.getTime(), answered: probe.answered, intervalMs: probe.intervalMs });
    outcomes.set(probe.interface, list);
  }
  const down = new Map(INTERFACES.map((name) => [name, downSpans(outcomes.get(name) ?? [])]));
  const dates: string[] = [];
  for (let date = from; date <= to; date = addDays(date, 1)) dates.push(date);
  // The days' bounds; the period is the days end to end, so its sums are the days' added up.
  const bounds = [...dates.map(midnight), end];
  const counted = (window: Span) => ({
    from: window.from,
    to: Math.max(window.from, Math.min(window.to, now.getTime())),
  });
  // Each record is put into its day once (a year's minutes read once, not once per day).
  const dayIndex = (at: number): number => {
    if (at < start || at >= end) return -1;
    let low = 0;
    let high = dates.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if (bounds[middle]! <= at) low = middle;
      else high = middle - 1;
    }
    return low;
  };
  interface Sums {
    requests: number;
    errors5xx: number;
    errors503: number;
    totalMs: number;
    readonly histogram: Map<number, number>;
  }
  const empty = (): Sums => ({ requests: 0, errors5xx: 0, errors503: 0, totalMs: 0, histogram: new Map() });
  const sums = new Map(INTERFACES.map((name) => [name as string, dates.map(empty)]));
  const whole = new Map(INTERFACES.map((name) => [name as string, empty()]));
  for (const row of records.minutes) {
    const index = dayIndex(row.minute.getTime());
    const days = sums.get(row.interface);
    if (index < 0 || days === undefined) continue;
    for (const sum of [days[index]!, whole.get(row.interface)!]) {
      sum.requests += row.requests;
      sum.errors5xx += row.errors5xx;
      sum.errors503 += row.errors503;
      sum.totalMs += row.totalMs;
    }
  }
  for (const row of records.latency) {
    const index = dayIndex(row.minute.getTime());
    const days = sums.get(row.interface);
    if (index < 0 || days === undefined) continue;
    for (const { histogram } of [days[index]!, whole.get(row.interface)!])
      histogram.set(row.bucket, (histogram.get(row.bucket) ?? 0) + row.answers);
  }
  // Unmonitored time over the whole period once; each day takes its part.
  const unwatched = new Map(
    INTERFACES.map((name) => [
      name,
      unmonitoredSpans(outcomes.get(name) ?? [], counted({ from: start, to: end })),
    ]),
  );
  const figures = (window: Span, of: (name: InterfaceName) => Sums): Figures[] =>
    INTERFACES.map((name) => {
      const watched = counted(window);
      const ms = watched.to - watched.from;
      const downMs = overlapMs(down.get(name)!, watched);
      const unwatchedMs = overlapMs(unwatched.get(name)!, watched);
      const { requests, errors5xx, errors503, totalMs, histogram } = of(name);
      return {
        interface: name,
        seconds: round(ms / 1000, 3),
        uptimeSeconds: round((ms - downMs) / 1000, 3),
        downtimeSeconds: round(downMs / 1000, 3),
        uptimePercent: ms === 0 ? null : round(100 - (100 * downMs) / ms, 3),
        downtimePercent: percent(downMs, ms),
        unmonitoredSeconds: round(unwatchedMs / 1000, 3),
        requests,
        averageMs: requests === 0 ? null : round(totalMs / requests, 1),
        p95Ms: percentileMs(histogram, 95) ?? null,
        errors5xx,
        errors503,
        errorRate5xxPercent: percent(errors5xx, requests),
        errorRate503Percent: percent(errors503, requests),
      };
    });
  const days = dates.map((date, index) => ({
    date,
    interfaces: figures({ from: bounds[index]!, to: bounds[index + 1]! }, (name) => sums.get(name)![index]!),
  }));
  return {
    from,
    to,
    timeZone,
    p95Precision: 'at most 9.05% above the true value (1 ms at the least)',
    days,
    period: figures({ from: start, to: end }, (name) => whole.get(name)!),
  };
}
