// SIGTERM under load: clients keep initiating payments while the gateway is told to stop. The
// process exits within SHUTDOWN_TIMEOUT_MS (and a margin for the exit itself). Every request got a
// whole answer (200, or 503 SERVICE_UNAVAILABLE in the API shape with Connection: close for one that
// arrived while closing) or none at all: its connection refused or closed before the request was read
// (a keep-alive connection the server closed as idle). Precisely, no answer was lost: the payments in
// the database are exactly the ones answered 200.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { createFreshDatabase, type FreshDatabase } from '../helpers/fresh-database.ts';
import { needsPostgres, paymentLoad, RELIABILITY_DATABASE_URL, type Served, serveOn } from './support.ts';

const SHUTDOWN_TIMEOUT_MS = 2_000;
/** What the exit itself may take beyond the bound: closing the pool, flushing the log. */
const EXIT_MARGIN_MS = 1_000;
/** A request that got no answer: refused, or its connection closed before it was read. */
const NO_ANSWER = new Set(['ECONNREFUSED', 'ECONNRESET', 'UND_ERR_SOCKET', 'other side closed']);

const run = needsPostgres('SIGTERM under load');

describe('SIGTERM under load', { skip: !run }, () => {
  let db: FreshDatabase;
  let served: Served;

  before(async () => {
    db = await createFreshDatabase(RELIABILITY_DATABASE_URL!);
    served = await serveOn(db.url, { SHUTDOWN_TIMEOUT_MS: String(SHUTDOWN_TIMEOUT_MS) });
  });
  after(async () => {
    await served?.process.kill();
    await db?.drop();
  });

  test('exits within SHUTDOWN_TIMEOUT_MS; every answer whole; no acknowledged payment lost, none unacknowledged', async () => {
    const token = await served.client.clientCredentialsToken();
    let stopped = false;
    const load = paymentLoad(served.client, token, {
      workers: 16,
      boundMs: 20_000,
      stop: () => stopped,
      execute: false,
    });
    await sleep(1_500);
    const signalled = Date.now();
    served.process.child.kill('SIGTERM');
    const code = await served.process.exited(SHUTDOWN_TIMEOUT_MS + 10_000);
    const tookMs = Date.now() - signalled;
    stopped = true;
    const records = await load;
    assert.equal(code, 0, served.process.stderr());
    assert.ok(tookMs <= SHUTDOWN_TIMEOUT_MS + EXIT_MARGIN_MS, `exited after ${tookMs} ms`);

    const text = 'The service is restarting; try again';
    const unavailable = {
      body: {
        httpCode: '503',
        httpMessage: 'Service Unavailable',
        moreInformation: text,
        tppMessages: [{ category: 'ERROR', code: 'SERVICE_UNAVAILABLE', text }],
      },
      connection: 'close',
    };
    const outcomes = new Map<string, number>();
    for (const record of records) {
      const outcome = String(record.initiated);
      outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
      if (record.initiated === 200) continue;
      if (record.initiated === 503) assert.deepEqual(record.refusal, unavailable);
      else assert.ok(NO_ANSWER.has(outcome), `${record.requestId}: ${outcome}`);
    }
    const acknowledged = records.flatMap((record) =>
      record.paymentId === undefined ? [] : [record.paymentId],
    );
    assert.ok(acknowledged.length >= 50, `${acknowledged.length} payments acknowledged`);
    const stored = await db.query<{ payment_id: string }>('SELECT payment_id FROM payments');
    assert.deepEqual(stored.map((row) => row.payment_id).sort(), acknowledged.sort());
    console.log(
      `# SIGTERM: exited in ${tookMs} ms; answers: ${JSON.stringify(Object.fromEntries(outcomes))}`,
    );
  });
});
