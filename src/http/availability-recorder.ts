// The gateway's answers for the RTS Art. 32 statistics: counted in memory per interface and minute on
// the hot path (a map update, no I/O), added to the database every AVAILABILITY_FLUSH_MS and when the app
// closes. A process killed with -9 loses at most its unflushed seconds; a flush that fails (the database
// away) keeps its counts for the next one.
import {
  bucketOf,
  type InterfaceName,
  interfaceOfRoute,
  isProbeRequest,
  type MinuteCounts,
} from '../domain/availability.ts';

/** At most a day of minutes for the four interfaces is kept while the database is away. */
const MAX_PENDING = 4 * 1440;

interface Counts {
  requests: number;
  errors5xx: number;
  errors503: number;
  totalMs: number;
  readonly buckets: Map<number, number>;
}

export interface AvailabilityRecorder {
  /** One answer: its route pattern, status code, time in ms, User-Agent and the app the request named. */
  answered(
    route: string,
    statusCode: number,
    ms: number,
    userAgent: string | undefined,
    appId: string | undefined,
  ): void;
  /** Writes what was counted; resolves when written (or kept for the next flush). */
  flush(): Promise<void>;
  /** Stops the timer and flushes once more. */
  close(): Promise<void>;
}

/** write adds the minutes to the database (store/availability-repository.ts addMinutes, from app.ts). */
export function availabilityRecorder(
  write: (minutes: readonly MinuteCounts[]) => Promise<void>,
  options: { readonly flushMs: number; readonly onError: (error: unknown) => void },
): AvailabilityRecorder {
  let pending = new Map<string, Counts>();
  // The interface and minute of each key, so that a flush does not parse keys back.
  const keys = new Map<string, { readonly name: InterfaceName; readonly minute: number }>();
  let flushing: Promise<void> = Promise.resolve();
  const classes = new Map<string, InterfaceName | null>();

  const countsOf = (name: InterfaceName, minute: number): Counts => {
    const key = `${name} ${minute}`;
    let counts = pending.get(key);
    if (counts === undefined) {
      counts = { requests: 0, errors5xx: 0, errors503: 0, totalMs: 0, buckets: new Map() };
      pending.set(key, counts);
      keys.set(key, { name, minute });
    }
    return counts;
  };

  const writePending = async () => {
    if (pending.size === 0) return;
    const taken = pending;
    pending = new Map();
    const rows: MinuteCounts[] = [...taken].map(([key, counts]) => {
      const { name, minute } = keys.get(key)!;
      return { interface: name, minute: new Date(minute * 60_000), ...counts };
    });
    try {
      await write(rows);
      for (const key of taken.keys()) if (!pending.has(key)) keys.delete(key);
    } catch (error) {
      options.onError(error);
      // Kept for the next flush, merged with what came meanwhile; the oldest dropped past the bound.
      // The kept minutes go first (a Map keeps insertion order): what came during the write is newer.
      const meanwhile = pending;
      pending = new Map();
      for (const [key, counts] of [...taken, ...meanwhile])
        merge(countsOf(keys.get(key)!.name, keys.get(key)!.minute), counts);
      for (const key of [...pending.keys()].slice(0, Math.max(0, pending.size - MAX_PENDING))) {
        pending.delete(key);
        keys.delete(key);
      }
    }
  };
  const flush = () => {
    flushing = flushing.then(writePending);
    return flushing;
  };
  const timer = setInterval(() => void flush(), options.flushMs);
  timer.unref();

  return {
    answered(route, statusCode, ms, userAgent, appId) {
      // Route patterns are few (never raw URLs): each is classed once.
      let name = classes.get(route);
      if (name === undefined) {
        name = interfaceOfRoute(route) ?? null;
        classes.set(route, name);
      }
      if (name === null || isProbeRequest(userAgent, appId)) return;
      const counts = countsOf(name, Math.floor(Date.now() / 60_000));
      counts.requests += 1;
      counts.totalMs += ms;
      if (statusCode >= 500) counts.errors5xx += 1;
      if (statusCode === 503) counts.errors503 += 1;
      const bucket = bucketOf(ms);
      counts.buckets.set(bucket, (counts.buckets.get(bucket) ?? 0) + 1);
    },
    flush,
    async close() {
      clearInterval(timer);
      await flush();
    },
  };
}

function merge(into: Counts, from: Counts): void {
  into.requests += from.requests;
  into.errors5xx += from.errors5xx;
  into.errors503 += from.errors503;
  into.totalMs += from.totalMs;
  for (const [bucket, count] of from.buckets)
    into.buckets.set(bucket, (into.buckets.get(bucket) ?? 0) + count);
}
