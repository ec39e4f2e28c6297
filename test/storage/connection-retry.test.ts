// A database connection that dies under a statement (PostgreSQL ends the backend, as at a restart or a
// failover: SQLSTATE 57P01): a read is run once more on a new connection and answers as if nothing
// happened; a write is not run again and answers 503, and the client's repeat under the same
// TPP-Request-ID then does it once. The statement is held on a table lock so that the test ends its
// backend while it waits. PostgreSQL only (skipped, saying so, without it).
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { type Gateway, startGateway, TEST_DATABASE_URL } from '../helpers/gateway.ts';
import { domestic } from '../helpers/payments.ts';

const PRODUCT = 'handelsbanken-domestic-credit-transfer';
const PAYMENTS = `/psd2/v1/payments/${PRODUCT}`;

describe('a connection that dies under a statement', {
  skip: TEST_DATABASE_URL === undefined ? 'TEST_DATABASE_URL is not set' : false,
}, () => {
  let gateway: Gateway;
  let token: string;

  before(async () => {
    gateway = await startGateway({ backend: 'postgres' });
    token = await gateway.client.clientCredentialsToken('PIS');
  });
  after(() => gateway?.close());

  /**
   * Runs call while another session holds the table exclusively; ends the backend that waits for it
   * (there must be one) and then lets the table go. Answers the call's answer and how many were ended.
   */
  async function endingTheWaiter<T>(
    table: string,
    call: () => Promise<T>,
  ): Promise<{ answer: T; ended: number }> {
    const holder = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await holder.connect();
    try {
      const relation = `${gateway.store.schemaName}.${table}`;
      await holder.query('BEGIN');
      await holder.query(`LOCK TABLE ${relation} IN ACCESS EXCLUSIVE MODE`);
      const pending = call();
      let waiting: number[] = [];
      for (let i = 0; i < 250 && waiting.length === 0; i++) {
        await sleep(20);
        const { rows } = await holder.query<{ pid: number }>(
          'SELECT pid FROM pg_locks WHERE relation = $1::regclass AND NOT granted',
          [relation],
        );
        waiting = rows.map((row) => row.pid);
      }
      for (const pid of waiting) await holder.query('SELECT pg_terminate_backend($1)', [pid]);
      await holder.query('COMMIT');
      return { answer: await pending, ended: waiting.length };
    } finally {
      await holder.end();
    }
  }

  const headers = (idempotencyKey?: string, bearer = token) => ({
    'x-gateway-client-id': gateway.sandboxApp.clientId,
    'tpp-request-id': randomUUID(),
    'tpp-transaction-id': 't',
    authorization: `Bearer ${bearer}`,
    country: 'SE',
    ...(idempotencyKey === undefined ? {} : { 'idempotency-key': `"${idempotencyKey}"` }),
  });

  async function initiated(): Promise<string> {
    const answer = await gateway.client.initiate(token, { path: PAYMENTS, country: 'SE', body: domestic() });
    assert.equal(answer.status, 200);
    return (answer.body as { paymentId: string }).paymentId;
  }

  test('a GET whose read loses its connection is read again: 200, the real status', async () => {
    const paymentId = await initiated();
    const { answer, ended } = await endingTheWaiter('payments', () =>
      gateway.client.request('GET', `${PAYMENTS}/${paymentId}/status`, { headers: headers() }),
    );
    assert.equal(ended, 1);
    assert.deepEqual([answer.status, answer.body], [200, { paymentId, transactionStatus: 'ACTC' }]);
  });

  test("a write's reading step (the token) loses its connection: read again, the payment initiated once", async () => {
    // A token never used is not in the cache: its first use reads the tokens table.
    const fresh = await gateway.client.clientCredentialsToken('PIS');
    const { answer, ended } = await endingTheWaiter('access_tokens', () =>
      gateway.client.request('POST', PAYMENTS, { headers: headers(undefined, fresh), json: domestic() }),
    );
    assert.equal(ended, 1);
    assert.equal(answer.status, 200);
    const { paymentId } = answer.body as { paymentId: string };
    const read = await gateway.client.request('GET', `${PAYMENTS}/${paymentId}/status`, {
      headers: headers(),
    });
    assert.deepEqual([read.status, read.body], [200, { paymentId, transactionStatus: 'ACTC' }]);
  });

  test('a write that loses its connection is not run again: 503, and the repeat under its Idempotency-Key does it once', async () => {
    await initiated();
    const key = randomUUID();
    const send = () => gateway.client.request('POST', PAYMENTS, { headers: headers(key), json: domestic() });
    const { answer, ended } = await endingTheWaiter('payments', send);
    assert.equal(ended, 1);
    assert.equal(answer.status, 503);
    assert.equal(answer.headers.get('retry-after'), '5');
    const correlation = answer.headers.get('x-correlation-id');
    const text = `The service cannot answer now; try again in 5 seconds (correlation id ${correlation})`;
    assert.deepEqual(answer.body, {
      httpCode: '503',
      httpMessage: 'Service Unavailable',
      moreInformation: text,
      tppMessages: [{ category: 'ERROR', code: 'SERVICE_UNAVAILABLE', text }],
    });
    const repeated = await send();
    const again = await send();
    assert.equal(repeated.status, 200);
    assert.deepEqual(again.body, repeated.body);
  });
});
