// An autocannon run in a process of its own (so that the load generator does not share the measured
// process's CPU). Reads its options as JSON from argv[2], or from the file argv[2] names (request lists
// are too long for a command line); prints the result as JSON: the average req/s, the p99 latency in
// ms, and the failed and total requests.
//
// The requests are a list spread over in turn (one account, app and token for the hot mix; many for the
// realistic mix); with `requestIds` every request carries a new TPP-Request-ID (a new payment each time,
// never an idempotent replay). The older form (url with its path, method, headers, body) is one request.
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import autocannon from 'autocannon';

export interface LoadRequest {
  readonly method: 'GET' | 'POST' | 'PUT';
  readonly path: string;
  readonly headers: Record<string, string>;
  readonly body?: string;
}

export interface LoadOptions {
  /** The origin (or, with the single-request form, the whole URL). */
  readonly url: string;
  readonly connections: number;
  readonly seconds: number;
  readonly requests?: readonly LoadRequest[];
  /** A new TPP-Request-ID on every request (default: true, as the single-request form always did). */
  readonly requestIds?: boolean;
  readonly method?: 'GET' | 'POST';
  readonly headers?: Record<string, string>;
  readonly body?: string;
}

export interface LoadResult {
  readonly average: number;
  readonly p99: number;
  readonly failed: number;
  readonly total: number;
  /** Answers by status code, and errors (connection errors, timeouts), to say what failed. */
  readonly statusCodes: Record<string, number>;
  readonly errors: number;
  readonly timeouts: number;
}

const argument = process.argv[2]!;
const options = JSON.parse(
  argument.startsWith('{') ? argument : readFileSync(argument, 'utf8'),
) as LoadOptions;
const url = new URL(options.url);
const list: readonly LoadRequest[] = options.requests ?? [
  {
    method: options.method ?? 'GET',
    path: url.pathname + url.search,
    headers: options.headers ?? {},
    ...(options.body === undefined ? {} : { body: options.body }),
  },
];
const requestIds = options.requestIds ?? true;
let next = 0;
const result = await autocannon({
  url: url.origin,
  connections: options.connections,
  duration: options.seconds,
  requests: [
    {
      setupRequest: (request) => {
        const item = list[next++ % list.length]!;
        return {
          ...request,
          method: item.method,
          path: item.path,
          headers: requestIds ? { ...item.headers, 'TPP-Request-ID': randomUUID() } : item.headers,
          ...(item.body === undefined ? {} : { body: item.body }),
        };
      },
    },
  ],
});
const answer: LoadResult = {
  average: result.requests.average,
  p99: result.latency.p99,
  failed: result.non2xx + result.errors + result.timeouts,
  total: result.requests.total,
  statusCodes: Object.fromEntries(
    Object.entries(result.statusCodeStats ?? {}).map(([code, stats]) => [
      code,
      (stats as { count: number }).count,
    ]),
  ),
  errors: result.errors,
  timeouts: result.timeouts,
};
process.stdout.write(`${JSON.stringify(answer)}\n`);
