// The database goes away under load, through a TCP proxy the test controls between the gateway's
// process and PostgreSQL: an outage (connections cut, new ones refused), then a blackhole (every byte
// dropped, nothing closed). Every request is answered, within the bound the database timeouts set:
// 200, or 503 SERVICE_UNAVAILABLE in the API shape; nothing stalls, no connection is dropped. When the
// database is back the gateway serves again by itself, and what it acknowledged is all there.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { type DatabaseProxy, type ProxyMode, startDatabaseProxy } from '../helpers/db-proxy.ts';
import { createFreshDatabase, type FreshDatabase } from '../helpers/fresh-database.ts';
import { domestic } from '../helpers/payments.ts';
import {
  ANSWER_BOUND_MS,
  assertLedgerSound,
  FAST_DATABASE_SETTINGS,
  INITIATE,
  needsPostgres,
  type PaymentRecord,
  RECOVERY_BOUND_MS,
  RELIABILITY_DATABASE_URL,
  readAcknowledged,
  type Served,
  serveOn,
  transportError,
} from './support.ts';

/** Long enough for requests to start and be refused within the fault, a blackhole's too. */
const FAULT_MS = 6_000;

const run = needsPostgres('database outage and blackhole under load');

interface Timed {
  readonly startedAt: number;
  readonly tookMs: number;
  readonly outcome: number | string;
  readonly body?: unknown;
}

describe('the database goes away under load and comes back', { skip: !run }, () => {
  let db: FreshDatabase;
  let proxy: DatabaseProxy;
  let served: Served;
  let token: string;
  const acknowledged: PaymentRecord[] = [];

  before(async () => {
    db = await createFreshDatabase(RELIABILITY_DATABASE_URL!);
    proxy = await startDatabaseProxy(new URL(db.url));
    served = await serveOn(proxy.url, FAST_DATABASE_SETTINGS);
    token = await served.client.clientCredentialsToken();
  });
  after(async () => {
    proxy?.set('pass');
    await served?.process.kill();
    await proxy?.close();
    await db?.drop();
  });

  /** One initiation, timed; a 200 is remembered as acknowledged. */
  async function initiate(): Promise<Timed> {
    const startedAt = Date.now();
    try {
      const answer = await served.client.initiate(token, { path: INITIATE, body: domestic() });
      if (answer.status === 200) acknowledged.push({ requestId: '', paymentId: answer.body.paymentId });
      const body = answer.status === 200 ? undefined : answer.body;
      return { startedAt, tookMs: Date.now() - startedAt, outcome: answer.status, body };
    } catch (error) {
      return { startedAt, tookMs: Date.now() - startedAt, outcome: transportError(error) };
    }
  }

  /** 8 clients initiate payments: 1 s served, FAULT_MS in `mode`, then until served again. */
  async function faultUnderLoad(mode: ProxyMode) {
    const answers: Timed[] = [];
    let faultFrom = Number.POSITIVE_INFINITY;
    let backAt = Number.POSITIVE_INFINITY;
    let recoveredAt: number | undefined;
    const deadline = Date.now() + 1_000 + FAULT_MS + RECOVERY_BOUND_MS;
    const worker = async () => {
      while (recoveredAt === undefined && Date.now() < deadline) {
        const timed = await initiate();
        answers.push(timed);
        if (timed.outcome === 200 && timed.startedAt > backAt) recoveredAt ??= Date.now();
      }
    };
    const load = Promise.all(Array.from({ length: 8 }, worker));
    await sleep(1_000);
    faultFrom = Date.now();
    proxy.set(mode);
    await sleep(FAULT_MS);
    proxy.set('pass');
    backAt = Date.now();
    await load;
    return { answers, faultFrom, backAt, recoveredAt };
  }

  function assertAnswered(run: Awaited<ReturnType<typeof faultUnderLoad>>) {
    const { answers, faultFrom, backAt, recoveredAt } = run;
    const outcomes = new Map<string, number>();
    for (const answer of answers)
      outcomes.set(String(answer.outcome), (outcomes.get(String(answer.outcome)) ?? 0) + 1);
    const slowest = Math.max(...answers.map((answer) => answer.tookMs));
    console.log(
      `# ${answers.length} requests, answers ${JSON.stringify(Object.fromEntries(outcomes))}, slowest ${slowest} ms, served again ${recoveredAt === undefined ? 'never' : `${recoveredAt - backAt} ms`} after the database came back`,
    );
    for (const answer of answers) {
      assert.ok(
        answer.outcome === 200 || answer.outcome === 503,
        `${answer.outcome} ${JSON.stringify(answer.body)}`,
      );
      if (answer.outcome === 503)
        assert.equal(
          (answer.body as { tppMessages: { code: string }[] }).tppMessages[0]?.code,
          'SERVICE_UNAVAILABLE',
        );
      assert.ok(answer.tookMs <= ANSWER_BOUND_MS, `an answer took ${answer.tookMs} ms`);
    }
    // Asked after the fault began and answered before it ended: the database could not have answered.
    const duringFault = answers.filter(
      (answer) => answer.startedAt > faultFrom && answer.startedAt + answer.tookMs < backAt,
    );
    assert.ok(duringFault.length > 0, 'requests were asked during the fault');
    assert.ok(
      duringFault.every((answer) => answer.outcome === 503),
      'the fault answered 503',
    );
    assert.ok(recoveredAt !== undefined, `not served again within ${RECOVERY_BOUND_MS} ms`);
  }

  test('an outage (connections cut, new ones refused): 503 within the bound, then served again', async () => {
    assertAnswered(await faultUnderLoad('refuse'));
  });

  test('a blackhole (every byte dropped): 503 within the bound, no stall, then served again', async () => {
    assertAnswered(await faultUnderLoad('blackhole'));
  });

  test('afterwards: ready, every acknowledged payment readable, the ledger sound', async () => {
    assert.equal((await fetch(`${served.url}/readyz`)).status, 200);
    await readAcknowledged(served, token, acknowledged);
    await assertLedgerSound(db);
  });
});
