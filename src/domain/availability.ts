// RTS Art. 32(4) and EBA/GL/2018/07 Guideline 2, as pure rules: which interface a route belongs to,
// response times in a log-scale histogram (a 95th percentile within a stated precision from counts that
// add across processes and minutes), and downtime from a probe's outcomes (five consecutive requests not
// answered in time make the interface down from the first of them until one is answered again).

/** The four dedicated interfaces the statistics are published for. */
export const INTERFACES = [
  'payment-initiation',
  'account-information',
  'confirmation-of-funds',
  'authorization',
] as const;
export type InterfaceName = (typeof INTERFACES)[number];

// Route patterns (never raw URLs), wherever the base path puts them. Account information under the
// Swedish payments path (short-term consents) is matched before payment initiation.
const CLASSES: readonly (readonly [RegExp, InterfaceName])[] = [
  [/\/psd2\/(?:[a-z]{2}\/)?v\d\/(?:consents|accounts|card-accounts)(?:\/|$)/, 'account-information'],
  [/\/psd2\/se\/v2\/payments\/private\/accounts(?:\/|$)/, 'account-information'],
  [/\/psd2\/(?:[a-z]{2}\/)?v\d\/funds-confirmations$/, 'confirmation-of-funds'],
  [/\/psd2\/(?:[a-z]{2}\/)?v\d\/payments(?:\/|$)/, 'payment-initiation'],
  [/\/(?:oauth2|decoupled|psu)\//, 'authorization'],
  [/\/psu$/, 'authorization'],
];

/** The PSU's own dashboard is no interface for TPPs: its pages are not counted under authorization. */
const NOT_COUNTED = /\/psu\/dashboard(?:\/|$)/;

/**
 * The interface of a route pattern; undefined for the rest (health, docs, sandbox, onboarding, the
 * PSU's dashboard).
 */
export function interfaceOfRoute(route: string): InterfaceName | undefined {
  if (NOT_COUNTED.test(route)) return undefined;
  for (const [pattern, name] of CLASSES) if (pattern.test(route)) return name;
  return undefined;
}

/** One interface's answers of one minute, as a process counted them. */
export interface MinuteCounts {
  readonly interface: string;
  readonly minute: Date;
  readonly requests: number;
  readonly errors5xx: number;
  readonly errors503: number;
  readonly totalMs: number;
  /** Histogram bucket -> answers. */
  readonly buckets: ReadonlyMap<number, number>;
}

/**
 * The probe's requests start their User-Agent with this and name the app PROBE_APP_ID: the gateway
 * leaves them out of the TPPs' statistics (they are the probe's, and downtime is computed from the
 * probe's own records).
 */
export const PROBE_USER_AGENT = 'psd2-gateway-probe';
/** An app id that no one registers (a UUID's 32 digits, all zero): the probe's requests name it. */
export const PROBE_APP_ID = '0'.repeat(32);

/**
 * Whether a request is the probe's. Both marks are needed: a TPP that sends the probe's User-Agent
 * with its own app is counted (it cannot take its answers out of the published figures), and one that
 * names the probe's app is refused as an unknown app whatever it sends.
 */
export function isProbeRequest(userAgent: string | undefined, appId: string | undefined): boolean {
  return appId === PROBE_APP_ID && userAgent?.startsWith(PROBE_USER_AGENT) === true;
}

/** Buckets per doubling: each bucket's upper bound is 2^(1/8) (9.05%) above its lower bound. */
const BUCKETS_PER_DOUBLING = 8;
/** The last bucket holds everything slower (2^(160/8) ms: over five hours). */
const LAST_BUCKET = 160;

/**
 * The histogram bucket of a response time: 0 for 1 ms or less, else k where 2^((k-1)/8) < ms <= 2^(k/8).
 * Reporting a bucket's upper bound overstates a time by at most 9.05%, never understates it.
 */
export function bucketOf(ms: number): number {
  if (!(ms > 1)) return 0;
  return Math.min(LAST_BUCKET, Math.ceil(Math.log2(ms) * BUCKETS_PER_DOUBLING - 1e-9));
}

/** A bucket's upper bound, ms. */
export function bucketUpperMs(bucket: number): number {
  return 2 ** (bucket / BUCKETS_PER_DOUBLING);
}

/**
 * The nearest-rank percentile (the smallest time that at least p% of answers took no longer than) of
 * a histogram (bucket -> count), as its bucket's upper bound rounded to 0.1 ms; undefined when empty.
 */
export function percentileMs(histogram: ReadonlyMap<number, number>, p: number): number | undefined {
  let total = 0;
  for (const count of histogram.values()) total += count;
  if (total === 0) return undefined;
  const rank = Math.ceil((p / 100) * total);
  let seen = 0;
  for (const bucket of [...histogram.keys()].sort((a, b) => a - b)) {
    seen += histogram.get(bucket)!;
    if (seen >= rank) return Math.round(bucketUpperMs(bucket) * 10) / 10;
  }
  return undefined;
}

/** One probe's request: when it was sent, and whether it was answered in time (anything but a 5xx). */
export interface ProbeOutcome {
  readonly at: number;
  readonly answered: boolean;
  /** The probe's interval when it was sent, ms: a record covers that long after it. */
  readonly intervalMs: number;
}

/** EBA/GL/2018/07 2.4(c): five consecutive requests not answered make the interface down. */
const CONSECUTIVE_FAILURES = 5;

export interface Span {
  readonly from: number;
  readonly to: number;
}

/**
 * The spans an interface was down, from its probe outcomes in time order: each run of at least five
 * consecutive unanswered probes, from the first of them until the next answered one (or, with none yet
 * or after a gap in the probes, until the last unanswered one plus its interval).
 */
export function downSpans(outcomes: readonly ProbeOutcome[]): Span[] {
  const spans: Span[] = [];
  let run: ProbeOutcome[] = [];
  const close = (until: number) => {
    if (run.length >= CONSECUTIVE_FAILURES) spans.push({ from: run[0]!.at, to: until });
    run = [];
  };
  for (const outcome of outcomes) {
    // After time no probe watched (unmonitoredSpans), a run ends where its cover does: the gap is
    // unmonitored, not down, and failures on either side of it are not consecutive.
    const before = run.at(-1);
    if (before !== undefined && outcome.at > before.at + 2 * before.intervalMs)
      close(before.at + before.intervalMs);
    if (outcome.answered) close(outcome.at);
    else run.push(outcome);
  }
  const last = run.at(-1);
  if (last !== undefined) close(last.at + last.intervalMs);
  return spans;
}

/**
 * The spans no probe watched: a record covers twice its interval after it (one late probe is no gap);
 * time outside every record's cover is unmonitored (the probe was not running).
 */
export function unmonitoredSpans(outcomes: readonly ProbeOutcome[], period: Span): Span[] {
  const spans: Span[] = [];
  let coveredUntil = period.from;
  for (const outcome of outcomes) {
    if (outcome.at > coveredUntil) spans.push({ from: coveredUntil, to: Math.min(outcome.at, period.to) });
    coveredUntil = Math.max(coveredUntil, outcome.at + 2 * outcome.intervalMs);
    if (coveredUntil >= period.to) break;
  }
  if (coveredUntil < period.to) spans.push({ from: coveredUntil, to: period.to });
  return spans.filter((span) => span.to > span.from);
}

/** How long the spans overlap the window, ms. */
export function overlapMs(spans: readonly Span[], window: Span): number {
  let total = 0;
  for (const span of spans)
    total += Math.max(0, Math.min(span.to, window.to) - Math.max(span.from, window.from));
  return total;
}
