// Calls to the national e-ID's relying-party API (BankID RP API v6.0): a JSON POST over HTTPS with the
// relying party's client certificate. What the contract lets a relying party try again (503
// maintenance, a proxy's 502/504, a lost connection, no answer in time) is tried again with the same
// body, after a back-off, within a bound of attempts and of total time; then the call fails as
// `unavailable`. What it says must not be retried automatically (500 internalError, 408
// requestTimeout, 429) fails as `unavailable` at once. Other refusals are RpRefusal, for the caller to
// judge; a broken answer or a TLS failure is an error of ours, thrown as it is.
import { Agent, request } from 'node:https';
import { SystemUnavailable } from '../../domain/bank-systems.ts';

export interface RpRetryPolicy {
  /** Attempts in all, the first one included. */
  readonly attempts: number;
  /** How long one attempt may take, ms. */
  readonly timeoutMs: number;
  /** The wait before the first retry, ms; it doubles before each further one (with jitter). */
  readonly backoffMs: number;
  /** The most that one call, all its attempts and waits together, may take, ms. */
  readonly totalMs: number;
}

const DEFAULT_RETRY: RpRetryPolicy = { attempts: 3, timeoutMs: 5_000, backoffMs: 250, totalMs: 10_000 };

/** The PSU already had an order in progress; the decoupled service reads `eidFailure`, as services may not import adapters. */
export class EidFailure extends Error {
  constructor(
    readonly eidFailure: 'alreadyInProgress',
    message: string,
  ) {
    super(message);
    this.name = 'EidFailure';
  }
}

/** The e-ID service cannot answer now: the domain's SystemUnavailable (503 with Retry-After). */
export class EidUnavailable extends SystemUnavailable {
  readonly eidFailure = 'unavailable';
  constructor(message: string) {
    super('eid', message);
    this.name = 'EidUnavailable';
  }
}

/** A refusal of the RP API ({errorCode, details}); `uncertain`: an earlier attempt of the call may have been processed. */
export class RpRefusal extends Error {
  constructor(
    readonly path: string,
    readonly status: number,
    readonly errorCode: string,
    readonly details: string,
    readonly uncertain: boolean,
  ) {
    super(`the e-ID service refused ${path}: ${status} ${errorCode} (${details})`);
    this.name = 'RpRefusal';
  }
}

type Attempt =
  | { readonly kind: 'answer'; readonly body: unknown }
  | {
      readonly kind: 'refused';
      readonly status: number;
      readonly errorCode: string;
      readonly details: string;
    }
  /** Worth another attempt; `processed`: the service may have processed this one. */
  | { readonly kind: 'transient'; readonly reason: string; readonly processed: boolean }
  | { readonly kind: 'broken'; readonly error: Error };

/** Connection failures that pass; a certificate the other side refuses (or we refuse) does not. */
const TRANSIENT_CODES = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'EPIPE',
  'ETIMEDOUT',
  'ENETUNREACH',
  'EHOSTUNREACH',
  'EAI_AGAIN',
]);
/** The answers the contract says are not to be retried automatically; the PSU is told to try again. */
const TRY_LATER_STATUSES = new Set([408, 429, 500]);
const MAX_ANSWER_BYTES = 1_000_000;

export interface RpClient {
  /** POSTs `payload` to `path` under the API's URL; answers the 200 body. */
  call(path: string, payload: unknown): Promise<unknown>;
}

export function rpClient(options: {
  readonly url: string;
  readonly cert: string;
  readonly key: string;
  readonly ca?: string;
  readonly retry?: Partial<RpRetryPolicy>;
}): RpClient {
  const retry = { ...DEFAULT_RETRY, ...options.retry };
  const agent = new Agent({
    keepAlive: true,
    cert: options.cert,
    key: options.key,
    ...(options.ca === undefined ? {} : { ca: options.ca }),
    minVersion: 'TLSv1.2',
  });
  const base = options.url.replace(/\/$/, '');

  return {
    async call(path, payload) {
      const body = JSON.stringify(payload);
      const started = performance.now();
      const elapsed = () => performance.now() - started;
      let uncertain = false;
      for (let attempt = 1; ; attempt++) {
        const timeoutMs = Math.min(retry.timeoutMs, retry.totalMs - elapsed());
        const outcome = await post(agent, base + path, body, timeoutMs);
        if (outcome.kind === 'answer') return outcome.body;
        if (outcome.kind === 'broken') throw outcome.error;
        if (outcome.kind === 'refused') {
          if (TRY_LATER_STATUSES.has(outcome.status)) {
            throw new EidUnavailable(
              `the e-ID service answered ${path} ${outcome.status} ${outcome.errorCode}`,
            );
          }
          throw new RpRefusal(path, outcome.status, outcome.errorCode, outcome.details, uncertain);
        }
        uncertain ||= outcome.processed;
        const wait = backoff(retry.backoffMs, attempt);
        if (attempt >= retry.attempts || elapsed() + wait >= retry.totalMs) {
          throw new EidUnavailable(
            `the e-ID service did not answer ${path} after ${attempt} attempts: ${outcome.reason}`,
          );
        }
        await new Promise((resolve) => setTimeout(resolve, wait));
      }
    },
  };
}

/** base·2^(n-1), between half and all of it: retries of many gateway processes do not arrive together. */
function backoff(baseMs: number, attempt: number): number {
  const full = baseMs * 2 ** (attempt - 1);
  return Math.round(full / 2 + (Math.random() * full) / 2);
}

function post(agent: Agent, url: string, body: string, timeoutMs: number): Promise<Attempt> {
  return new Promise((resolve) => {
    const req = request(
      url,
      {
        method: 'POST',
        agent,
        // The contract refuses a charset parameter on application/json (415).
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (response) => {
        const chunks: Buffer[] = [];
        let size = 0;
        response.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > MAX_ANSWER_BYTES) req.destroy(new Error(`the answer of ${url} is too large`));
          else chunks.push(chunk);
        });
        response.on('end', () => {
          clearTimeout(timer);
          resolve(answerOf(response.statusCode ?? 0, Buffer.concat(chunks).toString('utf8'), url));
        });
        response.on('error', (error) => resolve(failureOf(error, true)));
      },
    );
    const timer = setTimeout(() => req.destroy(new TimeoutError(timeoutMs)), Math.max(timeoutMs, 1));
    req.on('error', (error) => {
      clearTimeout(timer);
      resolve(failureOf(error, req.writableFinished));
    });
    req.end(body);
  });
}

class TimeoutError extends Error {
  readonly code = 'ETIMEDOUT';
  constructor(ms: number) {
    super(`no answer within ${ms} ms`);
  }
}

function failureOf(error: Error, sent: boolean): Attempt {
  const code = (error as { code?: string }).code ?? '';
  if (!TRANSIENT_CODES.has(code)) return { kind: 'broken', error };
  // A refused connection never carried the request; any other failure after it was sent may have.
  return { kind: 'transient', reason: error.message, processed: sent && code !== 'ECONNREFUSED' };
}

function answerOf(status: number, text: string, url: string): Attempt {
  let body: unknown;
  try {
    body = text === '' ? {} : JSON.parse(text);
  } catch {
    body = undefined;
  }
  if (status === 200) {
    return body === undefined
      ? { kind: 'broken', error: new Error(`${url} answered 200 with a body that is not JSON`) }
      : { kind: 'answer', body };
  }
  if (status === 503) return { kind: 'transient', reason: `503 ${errorCodeOf(body)}`, processed: false };
  // A proxy in front of the service: the request may or may not have reached it.
  if (status === 502 || status === 504) return { kind: 'transient', reason: String(status), processed: true };
  const details = (body as { details?: unknown } | undefined)?.details;
  return {
    kind: 'refused',
    status,
    errorCode: errorCodeOf(body),
    // Not the contract's body (a proxy's page): the start of it, for the log.
    details: typeof details === 'string' ? details : body === undefined ? text.slice(0, 200) : '',
  };
}

function errorCodeOf(body: unknown): string {
  const errorCode = (body as { errorCode?: unknown } | undefined)?.errorCode;
  return typeof errorCode === 'string' ? errorCode : 'unknown';
}
