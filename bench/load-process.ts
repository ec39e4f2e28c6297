// An autocannon run in a process of its own (so that the load generator does not share the measured
// process's CPU): POSTs of a payment initiation with a new TPP-Request-ID per request, or GETs.
// Reads its options as JSON from argv[2]; prints the result as JSON.
import { randomUUID } from 'node:crypto';
import autocannon from 'autocannon';

interface LoadOptions {
  readonly url: string;
  readonly connections: number;
  readonly seconds: number;
  readonly method: 'GET' | 'POST';
  readonly headers: Record<string, string>;
  readonly body?: string;
}

const options = JSON.parse(process.argv[2]!) as LoadOptions;
const result = await autocannon({
  url: options.url,
  connections: options.connections,
  duration: options.seconds,
  method: options.method,
  headers: options.headers,
  ...(options.body === undefined ? {} : { body: options.body }),
  requests: [
    {
      setupRequest: (request) => ({
        ...request,
        headers: { ...request.headers, 'TPP-Request-ID': randomUUID() },
      }),
    },
  ],
});
process.stdout.write(
  `${JSON.stringify({
    average: result.requests.average,
    failed: result.non2xx + result.errors + result.timeouts,
    total: result.requests.total,
  })}\n`,
);
