// The request log: one line per request once it is answered, naming the request (method, path without
// its query, the PSU-IP-Address and TPP-Request-ID it carried), its status and time, under the request's
// correlation id; never its token, its query string or its body.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import pino from 'pino';
import { configWith } from '../../src/config.ts';
import { loggerOptions } from '../../src/http/logging.ts';
import { type Gateway, startGateway } from '../helpers/gateway.ts';
import { BAD_REQUEST, call, NOT_FOUND, statusAndBody } from '../helpers/http.ts';

const lines: Record<string, unknown>[] = [];
let gateway: Gateway;
before(async () => {
  const logger = pino(loggerOptions(configWith({ logLevel: 'info' })), {
    write: (line: string) => {
      lines.push(JSON.parse(line));
    },
  });
  gateway = await startGateway({ logger });
});
after(() => gateway.close());

/** The lines of the request that carried `requestId`, once its answer has been logged (at most 2 s). */
async function linesOf(requestId: string): Promise<Record<string, unknown>[]> {
  const deadline = Date.now() + 2000;
  const of = () =>
    lines.filter((line) => (line.req as { tppRequestId?: string } | undefined)?.tppRequestId === requestId);
  while (of().length === 0 && Date.now() < deadline) await sleep(10);
  return of();
}

test('one line per request, with what an operator needs and nothing secret', async () => {
  const token = await gateway.client.clientCredentialsToken();
  const requestId = 'a0b1c2d3-0000-4000-8000-00000000b0a7';
  const answer = await call(gateway.app, 'GET', '/psd2/v1/nothing-here?code=one-time-code-1234', {
    headers: {
      authorization: `Bearer ${token}`,
      'psu-ip-address': '192.0.2.7',
      'tpp-request-id': requestId,
    },
  });
  assert.deepEqual(
    statusAndBody(answer),
    NOT_FOUND({ code: 'RESOURCE_UNKNOWN', text: 'There is no endpoint for GET at this path' }),
  );
  const logged = await linesOf(requestId);
  assert.equal(logged.length, 1, 'one line for the request, not one at its start and one at its end');
  const [line] = logged as [Record<string, unknown>];
  assert.equal(typeof line.responseTime, 'number', 'the time to answer, in ms');
  assert.match(String(line.reqId), /^[0-9a-f-]{36}$/, 'the correlation id');
  assert.deepEqual(
    { level: line.level, msg: line.msg, req: line.req, res: line.res },
    {
      level: 30,
      msg: 'request completed',
      req: {
        method: 'GET',
        path: '/psd2/v1/nothing-here',
        psuIpAddress: '192.0.2.7',
        tppRequestId: requestId,
      },
      res: { statusCode: 404 },
    },
  );
  const text = JSON.stringify(lines);
  assert.ok(!text.includes(token), 'no line carries the token');
  assert.ok(!text.includes('one-time-code-1234'), 'no line carries the query string');
  assert.ok(!lines.some((logged) => logged.msg === 'incoming request'), "Fastify's line at the start is off");
});

test('a state-changing request is logged once, without its body', async () => {
  const token = await gateway.client.clientCredentialsToken();
  const requestId = 'a0b1c2d3-0000-4000-8000-00000000b0a8';
  const answer = await call(gateway.app, 'POST', '/psd2/v1/payments/sepa-credit-transfer', {
    headers: { ...gateway.client.tppHeaders(token), 'tpp-request-id': requestId },
    json: { creditorName: 'Body Secret Name' },
  });
  assert.deepEqual(
    statusAndBody(answer),
    BAD_REQUEST({ code: 'FORMAT_ERROR', path: 'Country', text: 'header Country is required' }),
  );
  const logged = await linesOf(requestId);
  assert.deepEqual(
    logged.map((line) => ({ req: line.req, res: line.res })),
    [
      {
        req: {
          method: 'POST',
          path: '/psd2/v1/payments/sepa-credit-transfer',
          psuIpAddress: '192.0.2.1',
          tppRequestId: requestId,
        },
        res: { statusCode: 400 },
      },
    ],
  );
  assert.ok(!JSON.stringify(lines).includes('Body Secret Name'), 'no line carries the body');
});

test('personal identity numbers stay out of the log: a path naming one is logged masked', async () => {
  const requestId = 'a0b1c2d3-0000-4000-8000-00000000b0a9';
  const answer = await call(gateway.app, 'GET', '/psd2/v1/psus/191212121212/accounts', {
    headers: { 'psu-id': '19121212-1212', 'tpp-request-id': requestId },
  });
  assert.equal(answer.status, 404);
  const [line] = (await linesOf(requestId)) as [Record<string, unknown>];
  assert.deepEqual(line.req, {
    method: 'GET',
    path: '/psd2/v1/psus/19**********/accounts',
    tppRequestId: requestId,
  });
  const text = JSON.stringify(lines);
  assert.ok(!text.includes('191212121212') && !text.includes('19121212-1212'), 'no line carries the number');
});
