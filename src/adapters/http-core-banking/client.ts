// Calls to the bank's core banking system over HTTP(S), with the gateway's client certificate when one
// is given (mutual TLS). Each attempt is bounded by the timeout; what may be a passing fault (no
// connection, no answer in time, a 5xx, 429, or 409: the same order still in progress) is tried again,
// identically, after a growing pause, a bounded number of times. Every call the adapter makes is safe
// to repeat: reads, and bookings under their idempotency key.
import { Agent as HttpAgent, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Static, TSchema } from '@sinclair/typebox';
import { SystemUnavailable } from '../../domain/bank-systems.ts';

export interface RetryPolicy {
  /** Attempts in all, the first one included. */
  readonly attempts: number;
  /** The pause before the first retry; each next one doubles, up to `maxDelayMs`. */
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
}

export const DEFAULT_RETRY: RetryPolicy = Object.freeze({ attempts: 3, baseDelayMs: 200, maxDelayMs: 2_000 });

export interface ClientOptions {
  /** The base URL of the contract (docs/core-banking-api.yaml), e.g. https://core.bank.example/psd2-gateway/v1. */
  readonly url: string;
  /** The gateway's client certificate and key (PEM contents), for mutual TLS. */
  readonly cert?: string;
  readonly key?: string;
  /** Trusted issuers of the system's certificate (PEM); unset: the system's. */
  readonly ca?: string;
  /** How long one attempt may take, connection to last byte. */
  readonly timeoutMs: number;
  readonly retry?: Partial<RetryPolicy>;
}

export interface Call {
  readonly method: 'GET' | 'POST';
  /** The path below the base URL, with its query. */
  readonly path: string;
  readonly body?: unknown;
  readonly headers?: Readonly<Record<string, string>>;
  /** What the call is for, in errors: "booking order 1b2c…". */
  readonly what: string;
}

/** A read of the contract: the answer's body when the system has the thing asked for, else undefined. */
export type Read = <T extends TSchema>(
  what: string,
  schema: T,
  call: Omit<Call, 'what'>,
) => Promise<Static<T> | undefined>;

export interface SystemAnswer {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  /** The JSON body; undefined when there is none. */
  readonly body: unknown;
}

/**
 * No usable answer came within the attempts (no connection, no answer in time, 5xx, 429): whether the
 * system did what it was asked is unknown. The domain's SystemUnavailable: the caller answers 503.
 */
export class CoreBankingUnavailable extends SystemUnavailable {
  constructor(message: string) {
    super('coreBanking', message);
    this.name = 'CoreBankingUnavailable';
  }
}

/** The system answered what the contract does not allow (a fault on one side): not tried again. */
export class CoreBankingContractError extends Error {
  override readonly name = 'CoreBankingContractError';
}

/** Larger than any answer of the contract (a statement is at most a few hundred lines). */
const MAX_ANSWER_BYTES = 8 * 1024 * 1024;

/** Answers worth asking again: the system was busy, failing, or still doing the same order. */
const isPassing = (status: number) => status >= 500 || status === 429 || status === 409;

export interface CoreBankingClient {
  call(call: Call): Promise<SystemAnswer>;
  close(): void;
}

export function coreBankingClient(options: ClientOptions): CoreBankingClient {
  const base = new URL(options.url);
  // The contract's paths go below the base URL's own path.
  const prefix = base.origin + base.pathname.replace(/\/$/, '');
  const secure = base.protocol === 'https:';
  const policy: RetryPolicy = { ...DEFAULT_RETRY, ...options.retry };
  if (!Number.isInteger(policy.attempts) || policy.attempts < 1)
    throw new RangeError('retry.attempts must be at least 1');
  const tls = { cert: options.cert, key: options.key, ca: options.ca };
  const agent = secure ? new HttpsAgent({ keepAlive: true, ...tls }) : new HttpAgent({ keepAlive: true });
  const send = secure ? httpsRequest : httpRequest;

  function attempt(call: Call): Promise<SystemAnswer> {
    const payload = call.body === undefined ? undefined : JSON.stringify(call.body);
    return new Promise<SystemAnswer>((resolve, reject) => {
      const request = send(
        new URL(prefix + call.path),
        {
          method: call.method,
          agent,
          headers: {
            accept: 'application/json',
            ...(payload === undefined
              ? {}
              : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) }),
            ...call.headers,
          },
        },
        (response) => {
          const chunks: Buffer[] = [];
          let size = 0;
          response.on('data', (chunk: Buffer) => {
            size += chunk.length;
            if (size > MAX_ANSWER_BYTES)
              request.destroy(new Error(`an answer over ${MAX_ANSWER_BYTES} bytes`));
            else chunks.push(chunk);
          });
          response.on('error', reject);
          response.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            try {
              resolve({
                status: response.statusCode ?? 0,
                headers: response.headers,
                body: text === '' ? undefined : JSON.parse(text),
              });
            } catch {
              reject(new Error(`an answer ${response.statusCode} that is not JSON`));
            }
          });
        },
      );
      const timer = setTimeout(
        () => request.destroy(new Error(`no answer within ${options.timeoutMs} ms`)),
        options.timeoutMs,
      );
      request.on('error', reject);
      request.on('close', () => clearTimeout(timer));
      request.end(payload);
    });
  }

  return {
    async call(call) {
      for (let attempted = 1; ; attempted++) {
        let fault: string;
        let pause = backOff(policy, attempted);
        try {
          const answer = await attempt(call);
          if (!isPassing(answer.status)) return answer;
          fault = `answered ${answer.status}`;
          pause = Math.min(policy.maxDelayMs, Math.max(pause, retryAfterMs(answer.headers) ?? 0));
        } catch (error) {
          fault = error instanceof Error ? error.message : String(error);
        }
        if (attempted >= policy.attempts) {
          throw new CoreBankingUnavailable(
            `core banking system, ${call.what}: no usable answer in ${attempted} attempts (last: ${fault})`,
          );
        }
        await sleep(pause);
      }
    },
    close: () => agent.destroy(),
  };
}

/** The pause after attempt n: doubling from the base, capped, with jitter so that retries spread out. */
function backOff(policy: RetryPolicy, attempted: number): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempted - 1));
  return ceiling / 2 + Math.random() * (ceiling / 2);
}

/** Retry-After in seconds or as an HTTP date, in ms. */
function retryAfterMs(headers: IncomingHttpHeaders): number | undefined {
  const value = headers['retry-after'];
  if (value === undefined) return undefined;
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}
