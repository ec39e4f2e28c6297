// psd2-gateway probe: EBA/GL/2018/07's watch on the dedicated interface, as a process of its own beside
// the gateway. Every interval it sends one cheap request per interface (for an app that no one registered,
// so that the gateway looks it up in its database and answers 401, or 503 when it cannot) and
// records whether it was answered in time: anything but a 5xx, within the timeout. The outcomes are kept
// in memory and written to the database every --flush-ms; while the database is away they wait (up to
// MAX_PENDING) and are written when it is back. Downtime is computed from them by `report availability`.
import { randomBytes, randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { type InterfaceName, PROBE_APP_ID, PROBE_USER_AGENT } from '../domain/availability.ts';
import type { ProbeRecord } from '../store/availability-repository.ts';
import { type Command, parseOptions, required, UsageError } from './args.ts';

const USAGE = `usage: psd2-gateway probe --base-url URL [--interval-ms N] [--timeout-ms N] [--flush-ms N]
  --base-url     the gateway's URL as TPPs call it (with its base path)
  --interval-ms  time between two rounds of requests, one per interface (6000: five in EBA's 30 s)
  --timeout-ms   a request not answered within this is a failure (30000)
  --flush-ms     how often the outcomes are written to the database (5000)

Runs until SIGTERM or SIGINT, then writes what it holds. The outcomes go to the database the
settings name (DATABASE_URL; with PGlite give the probe a DATA_DIR of its own, and the report
--probe-data-dir: one PGlite directory is one process's).`;

const OPTIONS = {
  'base-url': { type: 'string' },
  'interval-ms': { type: 'string' },
  'timeout-ms': { type: 'string' },
  'flush-ms': { type: 'string' },
} as const;

/** The probe's User-Agent: the gateway leaves these requests out of the TPPs' statistics. */
const USER_AGENT = `${PROBE_USER_AGENT}/1`;
/** Outcomes kept while the database is away: a day at the default interval, four interfaces. */
const MAX_PENDING = 4 * 14_400;

const JSON_BODY = { type: 'application/json', body: '{}' };
const TOKEN_BODY = {
  type: 'application/x-www-form-urlencoded',
  body: `grant_type=client_credentials&client_id=${PROBE_APP_ID}&client_secret=none&scope=PSD2sandbox`,
};

interface ProbeRequest {
  readonly method: string;
  readonly path: string;
  readonly body?: { readonly type: string; readonly body: string };
}

/** One request per interface, each reaching the interface's app check (a database read). */
const REQUESTS: Readonly<Record<InterfaceName, ProbeRequest>> = {
  'payment-initiation': { method: 'GET', path: '/psd2/v1/payments/sepa-credit-transfers/probe/status' },
  'account-information': { method: 'GET', path: '/psd2/v1/accounts' },
  'confirmation-of-funds': { method: 'POST', path: '/psd2/v1/funds-confirmations', body: JSON_BODY },
  authorization: { method: 'POST', path: '/oauth2/token/1.0', body: TOKEN_BODY },
};

function milliseconds(value: string | undefined, name: string, fallback: number, min: number): number {
  if (value === undefined) return fallback;
  const parsed = /^\d{1,9}$/.test(value) ? Number(value) : Number.NaN;
  if (!(parsed >= min)) throw new UsageError(`--${name} must be a whole number of milliseconds >= ${min}`);
  return parsed;
}

function baseUrlOf(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError('--base-url must be an http or https URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new UsageError('--base-url must be an http or https URL');
  return url.href.replace(/\/$/, '');
}

/** One request: answered (not a 5xx) within the timeout or not, its status and time. */
async function probeOnce(
  baseUrl: string,
  request: ProbeRequest,
  timeoutMs: number,
): Promise<{ answered: boolean; statusCode: number | null; latencyMs: number }> {
  const started = performance.now();
  try {
    const response = await fetch(baseUrl + request.path, {
      method: request.method,
      headers: {
        'user-agent': USER_AGENT,
        'x-gateway-client-id': PROBE_APP_ID,
        'tpp-request-id': randomUUID(),
        'tpp-transaction-id': randomUUID(),
        country: 'SE',
        authorization: 'Bearer none',
        ...(request.body === undefined ? {} : { 'content-type': request.body.type }),
      },
      ...(request.body === undefined ? {} : { body: request.body.body }),
      signal: AbortSignal.timeout(timeoutMs),
    });
    await response.arrayBuffer();
    return {
      answered: response.status < 500,
      statusCode: response.status,
      latencyMs: performance.now() - started,
    };
  } catch {
    return { answered: false, statusCode: null, latencyMs: performance.now() - started };
  }
}

/**
 * Why a write failed, in a few words: the driver's code or first line, never the statement (a failed
 * query's message repeats it with every parameter).
 */
function reasonOf(error: unknown): string {
  const cause = (error as { cause?: unknown }).cause ?? error;
  const code = (cause as { code?: unknown }).code;
  if (typeof code === 'string') return code;
  return String((cause as Error).message ?? cause)
    .split('\n')[0]!
    .slice(0, 120);
}

export const probeCommand: Command = {
  summary: "watch the gateway's interfaces (EBA/GL/2018/07) and record each answer, for the report",
  usage: USAGE,
  async run(args) {
    const { values } = parseOptions(args, OPTIONS);
    const baseUrl = baseUrlOf(required(values['base-url'], 'base-url'));
    const intervalMs = milliseconds(values['interval-ms'], 'interval-ms', 6_000, 50);
    const timeoutMs = milliseconds(values['timeout-ms'], 'timeout-ms', 30_000, 50);
    const flushMs = milliseconds(values['flush-ms'], 'flush-ms', 5_000, 50);
    const { loadConfig } = await import('../config.ts');
    const { openConfiguredStore } = await import('../main.ts');
    const { addProbeOutcomes } = await import('../store/availability-repository.ts');
    const config = loadConfig();
    const probeId = randomBytes(8).toString('hex');
    const say = (text: string) => process.stderr.write(`psd2-gateway probe: ${text}\n`);
    let pending: ProbeRecord[] = [];
    let databaseDown = false;
    // Opened before the first round: opening PGlite holds the event loop for seconds, which would be a
    // gap in the probes. A database away at start is opened again at each flush.
    let store = await openConfiguredStore(config).catch((error: unknown) => {
      say(`database away (${reasonOf(error)}): outcomes kept in memory`);
      databaseDown = true;
      return undefined;
    });

    const flush = async () => {
      if (pending.length === 0) return;
      const taken = pending;
      pending = [];
      try {
        store ??= await openConfiguredStore(config);
        await addProbeOutcomes(store.db, taken);
        if (databaseDown) say(`database back: ${taken.length} outcomes written`);
        databaseDown = false;
      } catch (error) {
        if (!databaseDown) say(`database away (${reasonOf(error)}): outcomes kept in memory`);
        databaseDown = true;
        pending = [...taken, ...pending].slice(-MAX_PENDING);
      }
    };

    let stopping = false;
    const stopped = new Promise<void>((resolve) => {
      for (const signal of ['SIGTERM', 'SIGINT'] as const)
        process.once(signal, () => {
          stopping = true;
          resolve();
        });
    });
    process.stdout.write(`probing ${baseUrl} every ${intervalMs} ms (timeout ${timeoutMs} ms)\n`);
    const inFlight = new Set<Promise<void>>();
    let flushing = Promise.resolve();
    let lastFlush = Date.now();
    while (!stopping) {
      const sentAt = new Date();
      for (const [name, request] of Object.entries(REQUESTS)) {
        const probe = probeOnce(baseUrl, request, timeoutMs).then((outcome) => {
          pending.push({ probeId, interface: name, sentAt, intervalMs, ...outcome });
        });
        inFlight.add(probe);
        void probe.finally(() => inFlight.delete(probe));
      }
      if (Date.now() - lastFlush >= flushMs) {
        lastFlush = Date.now();
        flushing = flushing.then(flush);
      }
      await Promise.race([sleep(intervalMs), stopped]);
    }
    await Promise.all(inFlight);
    await flushing;
    await flush();
    await store?.close();
    if (pending.length > 0) {
      say(`${pending.length} outcomes could not be written: the database is away`);
      return 1;
    }
    return 0;
  },
};
