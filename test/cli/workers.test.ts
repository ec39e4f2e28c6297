// WORKERS=2 on PostgreSQL: two processes serve one port; a request id answers once whichever worker
// gets it; a payment initiated on one is read on the other; a due payment is booked once although both
// workers' schedulers look for it; a worker that dies is replaced; SIGTERM stops them all. A second
// gateway on the same database keeps the sandbox app's redirect URI as the first one wrote it.
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { TppClient } from '@psd2-gateway/client';
import pg from 'pg';
import { addDays, dateIn } from '../../src/domain/dates.ts';
import { TEST_DATABASE_URL } from '../helpers/gateway.ts';
import { KEY_IN_FLIGHT } from '../helpers/http.ts';
import { domestic } from '../helpers/payments.ts';
import { freePort, fresh, type ServeProcess, spawnServe } from '../helpers/serve-process.ts';

const PRODUCT = 'handelsbanken-domestic-credit-transfer';
const DOMESTIC = `/psd2/v1/payments/${PRODUCT}`;

describe('WORKERS=2', {
  skip: TEST_DATABASE_URL === undefined ? 'TEST_DATABASE_URL is not set' : false,
}, () => {
  const name = `w_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
  let databaseUrl: string;
  let gateway: ServeProcess;
  let port: number;
  let base: string;
  let clientId: string;
  let redirectUri: string;
  let token: string;
  let metricsPort: number;

  before(async () => {
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    const url = new URL(TEST_DATABASE_URL ?? '');
    url.pathname = `/${name}`;
    databaseUrl = url.href;
    port = await freePort();
    metricsPort = await freePort();
    gateway = spawnServe({
      DATABASE_URL: databaseUrl,
      PORT: String(port),
      WORKERS: '2',
      SCHEDULER_INTERVAL_MS: '200',
      SHUTDOWN_TIMEOUT_MS: '3000',
      METRICS_PORT: String(metricsPort),
    });
    await gateway.ready(2);
    base = `http://127.0.0.1:${port}`;
    const app = gateway.lines().find((line) => line.phase === 'sandbox app');
    assert.ok(app !== undefined, 'the app is stored');
    clientId = String(app.clientId);
    redirectUri = String(app.redirectUri);
    token = await new TppClient(base, clientId, redirectUri).clientCredentialsToken('PIS');
  });

  after(async () => {
    await gateway?.kill();
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  });

  const headers = (idempotencyKey?: string) => ({
    'x-gateway-client-id': clientId,
    'tpp-request-id': 'one-constant-request-id',
    'tpp-transaction-id': 't',
    authorization: `Bearer ${token}`,
    country: 'SE',
    ...(idempotencyKey === undefined ? {} : { 'idempotency-key': `"${idempotencyKey}"` }),
  });
  // How many of the six keyed initiations were answered 200 (the others 409, while the first was in flight).
  let initiatedAnswers = 0;

  test('the primary seeded once: one sandbox app, redirected to this port', async () => {
    assert.equal(redirectUri, `http://localhost:${port}/sandbox/callback`);
    const own = new pg.Client({ connectionString: databaseUrl });
    await own.connect();
    const { rows } = await own
      .query('SELECT client_id, redirect_uri FROM apps WHERE seeded')
      .finally(() => own.end());
    assert.deepEqual(rows, [{ client_id: clientId, redirect_uri: redirectUri }]);
  });

  test('one Idempotency-Key, sent six times at once on six connections: one payment, one answer', async () => {
    const key = randomUUID();
    const answers = await Promise.all(
      Array.from({ length: 6 }, () => fresh(base + DOMESTIC, 'POST', headers(key), domestic())),
    );
    const answered = answers.filter((answer) => answer.status === 200);
    assert.ok(answered.length >= 1, `one answer at least is the payment: ${JSON.stringify(answers)}`);
    const first = answered[0]!;
    const { paymentId } = first.body as { paymentId: string };
    // Each is the first answer again, or 409 while the first was still in flight: never a second payment.
    for (const answer of answers) {
      assert.deepEqual(answer, answer.status === 200 ? first : { status: 409, body: KEY_IN_FLIGHT });
    }
    initiatedAnswers = answered.length;
    const own = new pg.Client({ connectionString: databaseUrl });
    await own.connect();
    const stored = await own.query('SELECT payment_id FROM payments').finally(() => own.end());
    assert.deepEqual(stored.rows, [{ payment_id: paymentId }]);
    // Once answered, the key answers the payment again, whichever worker takes the retry.
    const retries = await Promise.all(
      Array.from({ length: 2 }, () => fresh(base + DOMESTIC, 'POST', headers(key), domestic())),
    );
    for (const retry of retries) assert.deepEqual(retry, first);
    // Read back on fresh connections: whichever worker answers, the same status.
    const reads = await Promise.all(
      Array.from({ length: 6 }, () => fresh(`${base}${DOMESTIC}/${paymentId}/status`, 'GET', headers())),
    );
    for (const read of reads)
      assert.deepEqual(read, { status: 200, body: { paymentId, transactionStatus: 'ACTC' } });
    // Both workers served: each request's log line carries its process id.
    const servedBy = new Set(
      gateway
        .lines()
        .filter((line) => (line.req as { path?: string } | undefined)?.path?.startsWith(DOMESTIC))
        .map((line) => line.pid),
    );
    assert.equal(servedBy.size, 2, 'both workers took requests');
  });

  test("METRICS_PORT: the primary serves the sum of both workers' metrics", async () => {
    const scraped = await fetch(`http://127.0.0.1:${metricsPort}/metrics`);
    assert.equal(scraped.status, 200);
    const text = await scraped.text();
    const sample = (name: string) =>
      Number(
        text
          .split('\n')
          .find((line) => line.startsWith(`${name} `))
          ?.slice(name.length + 1),
      );
    // Eight keyed initiations (one payment; replays and 409s while it was in flight) and six status
    // reads, spread over both workers.
    assert.equal(
      sample(
        'http_request_duration_seconds_count{method="POST",route="/psd2/v1/payments/:paymentProduct",status_code="200"}',
      ),
      initiatedAnswers + 2,
    );
    assert.equal(
      sample(
        'http_request_duration_seconds_count{method="GET",route="/psd2/v1/payments/:paymentProduct/:paymentId/status",status_code="200"}',
      ),
      6,
    );
    assert.equal(sample(`psd2_payments_total{product="${PRODUCT}",status="ACTC"}`), 1);
  });

  test('a payment that falls due is booked once, though both schedulers look for it', async () => {
    const client = new TppClient(base, clientId, redirectUri);
    const today = dateIn(new Date(), 'Europe/Stockholm');
    const initiated = await client.initiate(token, {
      path: DOMESTIC,
      country: 'SE',
      body: domestic({ requestedExecutionDate: addDays(today, 1) }),
    });
    assert.equal(initiated.status, 200);
    const { paymentId } = initiated.body as { paymentId: string };
    const executed = await client.authorizeAndExecute(PRODUCT, paymentId);
    assert.deepEqual(executed.body, { paymentId, transactionStatus: 'ACCP' });
    // Its date comes: the row is moved to today, as the calendar would.
    const own = new pg.Client({ connectionString: databaseUrl });
    await own.connect();
    try {
      await own.query('UPDATE payments SET requested_execution_date = $1 WHERE payment_id = $2', [
        today,
        paymentId,
      ]);
      let status = 'ACCP';
      for (let i = 0; i < 100 && status === 'ACCP'; i++) {
        await sleep(100);
        const read = await fresh(`${base}${DOMESTIC}/${paymentId}/status`, 'GET', headers());
        status = (read.body as { transactionStatus: string }).transactionStatus;
      }
      assert.equal(status, 'ACCC');
      const { rows } = await own.query('SELECT count(*)::int AS n FROM bookings WHERE payment_id = $1', [
        paymentId,
      ]);
      assert.deepEqual(rows, [{ n: 1 }]);
    } finally {
      await own.end();
    }
  });

  test('a second gateway on the same database keeps the redirect URI the first one wrote', async () => {
    const second = spawnServe({ DATABASE_URL: databaseUrl, PORT: '0' });
    try {
      await second.ready();
      const app = second.lines().find((line) => line.phase === 'sandbox app');
      assert.deepEqual([app?.clientId, app?.redirectUri], [clientId, redirectUri]);
    } finally {
      second.child.kill('SIGTERM');
      assert.equal(await second.exited(), 0);
    }
    const read = await fresh(`${base}/sandbox/test-data`, 'GET', {});
    assert.equal(read.status, 200);
    assert.deepEqual((read.body as { app: unknown }).app, { clientId, redirectUri });
  });

  test('a worker killed while serving is replaced; SIGTERM stops all of them', async () => {
    const pids = new Set(
      gateway
        .lines()
        .filter((line) => line.phase === 'listen')
        .map((line) => line.pid),
    );
    assert.equal(pids.size, 2);
    process.kill(Number([...pids][0]), 'SIGKILL');
    await gateway.ready(3);
    const read = await fresh(`${base}/livez`, 'GET', {});
    assert.equal(read.status, 200);
    gateway.child.kill('SIGTERM');
    assert.equal(await gateway.exited(10_000), 0);
    const listening = gateway
      .lines()
      .filter((line) => line.phase === 'listen')
      .map((line) => Number(line.pid));
    for (const pid of listening) assert.throws(() => process.kill(pid, 0), /ESRCH/, `worker ${pid} is gone`);
  });
});
