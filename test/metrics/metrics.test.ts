// GET /metrics (issue 17 item 5): real traffic through the sandbox gateway, then the exposition parsed
// and held to exactly the series that traffic must produce; live, /metrics is not on the public
// listener (404 in the API's shape) but on its own (METRICS_PORT); on PostgreSQL the pool's gauges.

import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { InitiationRequest } from '@psd2-gateway/client';
import { certCommand } from '../../src/cli/cert.ts';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { addDays, dateIn } from '../../src/domain/dates.ts';
import { openStore } from '../../src/store/database/open.ts';
import { initDecoupled, postLink } from '../helpers/decoupled.ts';
import {
  type Gateway,
  manualClock,
  startGateway,
  TEST_DATABASE_URL,
  type TestStore,
} from '../helpers/gateway.ts';
import { call, NOT_FOUND } from '../helpers/http.ts';
import { liveSettings } from '../helpers/live-settings.ts';
import { domestic } from '../helpers/payments.ts';
import { startCapturing } from '../helpers/start.ts';
import { tlsRequest } from '../helpers/tls.ts';

const DOMESTIC = 'handelsbanken-domestic-credit-transfer';
const SE_PATH = `/psd2/se/v2/payments/private/single/${DOMESTIC}`;
const PROMETHEUS_TEXT = 'text/plain; version=0.0.4; charset=utf-8';

/** The samples of an exposition: "name{label="value",...}" (labels as written) to its value. */
function samples(text: string): Map<string, number> {
  const parsed = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*(?:\{[^}]*\})?) (\S+)$/.exec(line);
    assert.ok(match !== null, `not a sample line: ${line}`);
    parsed.set(match[1]!, Number(match[2]));
  }
  return parsed;
}

/** The samples of one series name (a counter, or a histogram's _count), as an object. */
function series(all: Map<string, number>, name: string): Record<string, number> {
  return Object.fromEntries([...all].filter(([key]) => key === name || key.startsWith(`${name}{`)));
}

async function scrape(url: string): Promise<Map<string, number>> {
  const answer = await fetch(url);
  assert.equal(answer.status, 200);
  assert.equal(answer.headers.get('content-type'), PROMETHEUS_TEXT);
  return samples(await answer.text());
}

const requests = (method: string, route: string, status: number) =>
  `http_request_duration_seconds_count{method="${method}",route="${route}",status_code="${status}"}`;

describe('metrics in the sandbox', () => {
  // A Saturday morning: a payment for tomorrow waits (ACCP), as in test/payments/future-dated.test.ts.
  const time = manualClock(Date.parse('2026-11-21T10:00:00Z'));
  let gateway: Gateway;
  let metricsUrl: string;
  before(async () => {
    gateway = await startGateway({ clock: time.clock });
    metricsUrl = `${new URL(gateway.url).origin}/metrics`;
  });
  after(() => gateway.close());

  test('payments, executions, rejections, decoupled sessions, tokens and requests, counted exactly', async () => {
    const { client } = gateway;
    const token = await client.clientCredentialsToken();
    const initiate = async (body: InitiationRequest) => {
      const answer = await client.initiate(token, { path: SE_PATH, body });
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
      return answer.body.paymentId;
    };
    // Booked at once (ACCC).
    const booked = await initiate(domestic());
    assert.equal((await client.authorizeAndExecute(DOMESTIC, booked)).body.transactionStatus, 'ACCC');
    // Refused by the bank: Sam Scenario's empty account (AM04).
    const refused = await initiate(
      domestic({ debtorAccount: { value: '6000240000005', accountType: 'BBAN' } }),
    );
    assert.equal((await client.authorizeAndExecute(DOMESTIC, refused)).body.transactionStatus, 'RJCT');
    // Dated tomorrow: accepted for its date (ACCP), then cancelled (CANC).
    const tomorrow = addDays(dateIn(time.clock(), 'Europe/Stockholm'), 1);
    const dated = await initiate(domestic({ requestedExecutionDate: tomorrow }));
    const psuToken = (await client.authorizeScope(`PIS:${dated}`)).access_token;
    const execute = () =>
      call(gateway.app, 'PUT', `/psd2/v1/payments/${DOMESTIC}/${dated}`, {
        headers: client.tppHeaders(psuToken, { 'TPP-Request-ID': 'execute-dated-once' }),
      });
    const executed = await execute();
    assert.deepEqual(
      [executed.status, executed.body],
      [200, { paymentId: dated, transactionStatus: 'ACCP' }],
    );
    // The same request again answers the first answer and counts nothing more.
    assert.deepEqual((await execute()).body, executed.body);
    const cancelled = await call(gateway.app, 'DELETE', `/psd2/v1/payments/${DOMESTIC}/${dated}`, {
      headers: client.tppHeaders(token),
    });
    assert.deepEqual(
      [cancelled.status, cancelled.body],
      [200, { paymentId: dated, transactionStatus: 'CANC' }],
    );
    // Decoupled: one session completes (a PSU token), Dennis Declines cancels in the e-ID app.
    const decoupled = async (paymentId: string, polls: number) => {
      const init = await initDecoupled(gateway, {
        client_id: client.clientId,
        scope: `PIS:${paymentId}`,
        psu_client_ip: '192.0.2.1',
        bisa_same_device: true,
      });
      assert.equal(init.status, 200, JSON.stringify(init.body));
      const href = (init.body as { _links: { token: { href: string } } })._links.token.href;
      const results = [];
      for (let poll = 0; poll < polls; poll += 1)
        results.push((await postLink(gateway, href)).body as { result: string });
      return results.map((answer) => answer.result);
    };
    assert.deepEqual(await decoupled(await initiate(domestic()), 1), ['COMPLETE']);
    const dennis = await initiate(
      domestic({ debtorAccount: { value: '6000240000056', accountType: 'BBAN' } }),
    );
    assert.deepEqual(await decoupled(dennis, 2), ['IN_PROGRESS', 'USER_CANCEL']);
    // A refused initiation and an unknown path: requests only.
    const invalid = await client.initiate(token, { path: SE_PATH, body: domestic({ instructedAmount: {} }) });
    assert.equal(invalid.status, 400);
    const unknown = await call(gateway.app, 'GET', '/no/such/endpoint/12345');
    assert.deepEqual(
      { status: unknown.status, body: unknown.body },
      NOT_FOUND({ code: 'RESOURCE_UNKNOWN', text: 'There is no endpoint for GET at this path' }),
    );

    const metrics = await scrape(metricsUrl);
    assert.deepEqual(series(metrics, 'psd2_payments_total'), {
      [`psd2_payments_total{product="${DOMESTIC}",status="ACTC"}`]: 5,
      [`psd2_payments_total{product="${DOMESTIC}",status="ACCC"}`]: 1,
      [`psd2_payments_total{product="${DOMESTIC}",status="RJCT"}`]: 1,
      [`psd2_payments_total{product="${DOMESTIC}",status="ACCP"}`]: 1,
      [`psd2_payments_total{product="${DOMESTIC}",status="CANC"}`]: 1,
    });
    assert.deepEqual(series(metrics, 'psd2_payment_executions_total'), {
      'psd2_payment_executions_total{result="booked"}': 1,
      'psd2_payment_executions_total{result="rejected"}': 1,
      'psd2_payment_executions_total{result="scheduled"}': 1,
    });
    assert.deepEqual(series(metrics, 'psd2_payment_rejections_total'), {
      'psd2_payment_rejections_total{reason="AM04"}': 1,
    });
    assert.deepEqual(series(metrics, 'psd2_decoupled_sessions_started_total'), {
      psd2_decoupled_sessions_started_total: 2,
    });
    assert.deepEqual(series(metrics, 'psd2_decoupled_sessions_ended_total'), {
      'psd2_decoupled_sessions_ended_total{result="complete"}': 1,
      'psd2_decoupled_sessions_ended_total{result="user_cancel"}': 1,
    });
    assert.deepEqual(series(metrics, 'psd2_tokens_issued_total'), {
      'psd2_tokens_issued_total{grant="client_credentials"}': 1,
      'psd2_tokens_issued_total{grant="authorization_code"}': 3,
      'psd2_tokens_issued_total{grant="decoupled"}': 1,
    });
    assert.deepEqual(series(metrics, 'http_request_duration_seconds_count'), {
      [requests('POST', '/oauth2/token/1.0', 200)]: 4,
      [requests('POST', '/psd2/se/v2/payments/:customerType/single/:paymentProduct', 200)]: 5,
      [requests('POST', '/psd2/se/v2/payments/:customerType/single/:paymentProduct', 400)]: 1,
      [requests('GET', '/oauth2/authorize/1.0', 302)]: 3,
      [requests('PUT', '/psd2/v1/payments/:paymentProduct/:paymentId', 200)]: 4,
      [requests('DELETE', '/psd2/v1/payments/:paymentProduct/:paymentId', 200)]: 1,
      [requests('POST', '/decoupled/eid/initAuthorization/2.0', 200)]: 2,
      [requests('POST', '/decoupled/eid/token/2.0', 200)]: 3,
      [requests('GET', 'unmatched', 404)]: 1,
    });
    // One request at a time: every initiation a statement of its own, every payment read too.
    const batches = series(metrics, 'psd2_db_batch_size_count');
    const reads = batches['psd2_db_batch_size_count{statement="find_payments"}']!;
    assert.ok(reads > 0, `${reads} reads counted`);
    assert.deepEqual(
      {
        ...series(metrics, 'psd2_db_batch_size_sum'),
        ...batches,
        ...series(metrics, 'psd2_db_batch_size_bucket{le="1",statement="insert_payments_answering"}'),
        ...series(metrics, 'psd2_db_batch_size_bucket{le="1",statement="find_payments"}'),
      },
      {
        'psd2_db_batch_size_sum{statement="insert_payments_answering"}': 5,
        'psd2_db_batch_size_count{statement="insert_payments_answering"}': 5,
        'psd2_db_batch_size_bucket{le="1",statement="insert_payments_answering"}': 5,
        'psd2_db_batch_size_sum{statement="find_payments"}': reads,
        'psd2_db_batch_size_count{statement="find_payments"}': reads,
        'psd2_db_batch_size_bucket{le="1",statement="find_payments"}': reads,
        // Every call with a PSU token looks it up (client tokens are cached), each debtor account the
        // initiations name is looked up once (then cached); each of the four PUTs reads its payment as any
        // read does (find_payments: an execution without an Idempotency-Key looks up no recorded answer).
        'psd2_db_batch_size_sum{statement="find_tokens"}': 5,
        'psd2_db_batch_size_count{statement="find_tokens"}': 5,
        'psd2_db_batch_size_sum{statement="accounts_by_bban"}': 3,
        'psd2_db_batch_size_count{statement="accounts_by_bban"}': 3,
        // Each of the three redirect authorizations stores its code. The two executions that ask the
        // bank (one booked, one refused) book and record in one call of the built-in ledger each, one
        // at a time (ledger_execute_all): no marks or finishes; the future-dated one asks nothing.
        'psd2_db_batch_size_sum{statement="ledger_execute_all"}': 2,
        'psd2_db_batch_size_count{statement="ledger_execute_all"}': 2,
        'psd2_db_batch_size_sum{statement="insert_codes"}': 3,
        'psd2_db_batch_size_count{statement="insert_codes"}': 3,
        // ... and each of those codes is exchanged for the PSU's token, one at a time.
        'psd2_db_batch_size_sum{statement="exchange_codes"}': 3,
        'psd2_db_batch_size_count{statement="exchange_codes"}': 3,
      },
    );
    // The event loop's lag is measured; PGlite has no pool to report.
    for (const name of ['mean', 'p99', 'max']) {
      const lag = metrics.get(`nodejs_eventloop_lag_${name}_seconds`);
      assert.ok(lag !== undefined && lag >= 0, `nodejs_eventloop_lag_${name}_seconds ${lag}`);
    }
    assert.deepEqual(
      [...metrics.keys()].filter((key) => key.startsWith('psd2_db_pool_')),
      [],
    );
    // The scrape itself is a request like any other, counted once answered.
    const again = await scrape(metricsUrl);
    assert.equal(again.get(requests('GET', '/metrics', 200)), 1);
  });

  test('concurrent initiations share statements: the batch sizes add up to the payments', async () => {
    const before = await scrape(metricsUrl);
    const token = await gateway.client.clientCredentialsToken();
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => gateway.client.initiate(token, { path: SE_PATH, body: domestic() })),
    );
    assert.deepEqual(
      answers.map((answer) => answer.status),
      answers.map(() => 200),
    );
    const after = await scrape(metricsUrl);
    const sum = 'psd2_db_batch_size_sum{statement="insert_payments_answering"}';
    const count = 'psd2_db_batch_size_count{statement="insert_payments_answering"}';
    assert.equal(after.get(sum)! - before.get(sum)!, 20);
    const statements = after.get(count)! - before.get(count)!;
    assert.ok(statements >= 1 && statements <= 20, `${statements} statements`);
    const initiated = `psd2_payments_total{product="${DOMESTIC}",status="ACTC"}`;
    assert.equal(after.get(initiated)! - before.get(initiated)!, 20);
  });

  test('the OpenAPI document lists GET /metrics as a Service operation in Prometheus text', async () => {
    const document = (await (await fetch(`${gateway.url}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { operationId: string; tags: string[]; responses: unknown }>>;
    };
    const operation = document.paths['/metrics']!.get!;
    assert.deepEqual([operation.operationId, operation.tags], ['getMetrics', ['Service']]);
  });
});

test('live: /metrics is not on the public listener (404), but on METRICS_PORT', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'psd2-metrics-'));
  try {
    assert.equal(await certCommand.run(['ca', '--out', dir]), 0);
    assert.equal(await certCommand.run(['server', '--ca', dir, '--out', dir, '--host', 'localhost']), 0);
    const config = loadConfig(liveSettings(dir, { METRICS_PORT: '0' }));
    const { lines, server } = await startCapturing(config);
    try {
      assert.match(server.metricsUrl!, /^http:\/\/127\.0\.0\.1:\d+$/);
      assert.ok(
        lines.some((line) => line.msg === `metrics at ${server.metricsUrl}/metrics in ${line.ms} ms`),
        'the metrics address is logged',
      );
      const ca = await readFile(join(dir, 'ca.pem'), 'utf8');
      assert.deepEqual(
        await tlsRequest(`${server.url}/metrics`, { method: 'GET', ca }),
        NOT_FOUND({ code: 'RESOURCE_UNKNOWN', text: 'There is no endpoint for GET at this path' }),
      );
      const elsewhere = await fetch(`${server.metricsUrl}/healthz`);
      assert.deepEqual(
        { status: elsewhere.status, body: await elsewhere.json() },
        NOT_FOUND({ code: 'RESOURCE_UNKNOWN', text: 'There is no endpoint for GET at this path' }),
      );
      const metrics = await scrape(`${server.metricsUrl}/metrics`);
      // Only the refused public request happened; the metrics' own listener counts no requests.
      const notFound = 'method="GET",route="unmatched",status_code="404"';
      assert.deepEqual(
        [...metrics.keys()].filter((key) => !key.startsWith('nodejs_eventloop_lag_')),
        [
          'psd2_decoupled_sessions_started_total',
          // The start asked the database whether it answers (one line per system in the log).
          'psd2_system_up{system="database"}',
          ...[
            '0.001',
            '0.005',
            '0.01',
            '0.025',
            '0.05',
            '0.1',
            '0.25',
            '0.5',
            '1',
            '2.5',
            '5',
            '10',
            '+Inf',
          ].map((le) => `psd2_system_call_duration_seconds_bucket{le="${le}",system="database"}`),
          'psd2_system_call_duration_seconds_sum{system="database"}',
          'psd2_system_call_duration_seconds_count{system="database"}',
          ...['0.005', '0.01', '0.025', '0.05', '0.1', '0.25', '0.5', '1', '2.5', '5', '10', '+Inf'].map(
            (le) => `http_request_duration_seconds_bucket{le="${le}",${notFound}}`,
          ),
          `http_request_duration_seconds_sum{${notFound}}`,
          `http_request_duration_seconds_count{${notFound}}`,
        ],
      );
      assert.deepEqual(
        [
          metrics.get('psd2_decoupled_sessions_started_total'),
          metrics.get(`http_request_duration_seconds_bucket{le="+Inf",${notFound}}`),
          metrics.get(`http_request_duration_seconds_count{${notFound}}`),
        ],
        [0, 1, 1],
      );
    } finally {
      await server.close();
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('METRICS_PORT and METRICS_HOST: unset by default, a port other than PORT', () => {
  const defaults = loadConfig({});
  assert.deepEqual([defaults.metricsPort, defaults.metricsHost], [undefined, '127.0.0.1']);
  const set = loadConfig({ METRICS_PORT: '9464', METRICS_HOST: '10.0.0.5' });
  assert.deepEqual([set.metricsPort, set.metricsHost], [9464, '10.0.0.5']);
  assert.throws(
    () => loadConfig({ PORT: '8080', METRICS_PORT: '8080' }),
    (error: unknown) =>
      error instanceof ConfigError &&
      error.message === 'METRICS_PORT: must differ from PORT (8080): the metrics have their own listener',
  );
  assert.throws(
    () => loadConfig({ METRICS_PORT: 'nine' }),
    (error: unknown) =>
      error instanceof ConfigError && error.message === 'METRICS_PORT: must be a whole number, got "nine"',
  );
});

if (TEST_DATABASE_URL === undefined)
  console.log('# PostgreSQL pool gauges skipped: TEST_DATABASE_URL is not set');
describe('the database pool on PostgreSQL', { skip: TEST_DATABASE_URL === undefined }, () => {
  let gateway: Gateway;
  let store: TestStore;
  before(async () => {
    // One connection in each of the store's two pools (the named statements', which the gateway's
    // start has used, and the other statements'), so that what holds them and what waits is known exactly.
    const schemaName = `t_metrics_${process.pid}`;
    const opened = await openStore({ databaseUrl: TEST_DATABASE_URL, schemaName, poolSize: 1 });
    store = {
      ...opened,
      schemaName,
      close: async () => {
        await opened.db.execute(`DROP SCHEMA IF EXISTS ${schemaName} CASCADE`);
        await opened.close();
      },
    };
    gateway = await startGateway({ store });
  });
  after(async () => {
    await gateway.close();
    await store.close();
  });

  const pool = (metrics: Map<string, number>) =>
    Object.fromEntries([...metrics].filter(([key]) => key.startsWith('psd2_db_pool_')));

  test('connections in use and idle, and statements waiting for one', async () => {
    const url = `${new URL(gateway.url).origin}/metrics`;
    assert.deepEqual(pool(await scrape(url)), {
      psd2_db_pool_connections_in_use: 0,
      psd2_db_pool_connections_idle: 2,
      psd2_db_pool_waiting: 0,
    });
    let waiting: Promise<unknown> | undefined;
    await store.db.transaction(async (trx) => {
      await trx.execute('SELECT 1');
      // The pool's one connection is this transaction's: another statement waits for it.
      // (Drizzle runs a statement once it is awaited or then-ed.)
      waiting = store.db.execute('SELECT 2').then(() => {});
      assert.deepEqual(pool(await scrape(url)), {
        psd2_db_pool_connections_in_use: 1,
        psd2_db_pool_connections_idle: 1,
        psd2_db_pool_waiting: 1,
      });
    });
    await waiting;
    assert.deepEqual(pool(await scrape(url)), {
      psd2_db_pool_connections_in_use: 0,
      psd2_db_pool_connections_idle: 2,
      psd2_db_pool_waiting: 0,
    });
  });
});
