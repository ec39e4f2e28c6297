// kill -9 under load: payments are initiated, authorized and executed by several clients when the
// gateway's process is killed outright. Started again on the same database, the gateway reads every
// payment it acknowledged, with the status it answered; the ledger is balanced and nothing is booked
// twice; executing again what was cut off books each payment once.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { createFreshDatabase, type FreshDatabase } from '../helpers/fresh-database.ts';
import {
  assertLedgerSound,
  needsPostgres,
  type PaymentRecord,
  PRODUCT,
  paymentLoad,
  RELIABILITY_DATABASE_URL,
  readAcknowledged,
  type Served,
  serveOn,
} from './support.ts';

const run = needsPostgres('kill -9 under load');

describe('kill -9 under load, then a restart on the same database', { skip: !run }, () => {
  let db: FreshDatabase;
  const served: Served[] = [];
  let token: string;
  let records: PaymentRecord[];

  before(async () => {
    db = await createFreshDatabase(RELIABILITY_DATABASE_URL!);
  });
  after(async () => {
    for (const gateway of served) await gateway.process.kill();
    await db?.drop();
  });

  test('killed mid-load: payments acknowledged, executed, and cut off', async () => {
    const first = await serveOn(db.url);
    served.push(first);
    token = await first.client.clientCredentialsToken();
    let killed = false;
    const load = paymentLoad(first.client, token, {
      workers: 8,
      boundMs: 30_000,
      stop: () => killed,
      execute: true,
    });
    // Kill once 40 payments are settled (watched in the database), at the latest after 10 s.
    const until = Date.now() + 10_000;
    while (Date.now() < until) {
      const [row] = await db.query<{ n: number }>(
        "SELECT count(*)::int AS n FROM payments WHERE status = 'ACCC'",
      );
      if ((row?.n ?? 0) >= 40) break;
      await sleep(50);
    }
    first.process.child.kill('SIGKILL');
    killed = true;
    records = await load;
    assert.equal(await first.process.exited(), null, 'killed by a signal');
    const acknowledged = records.filter((record) => record.paymentId !== undefined);
    assert.ok(acknowledged.length >= 40, `${acknowledged.length} payments acknowledged`);
    assert.ok(countExecuted(records) >= 30, `${countExecuted(records)} executions acknowledged`);
    console.log(
      `# kill -9: ${records.length} payments started, ${acknowledged.length} acknowledged, ${countExecuted(records)} executions acknowledged`,
    );
  });

  test('restarted: every acknowledged payment readable with its status; ledger balanced; nothing twice', async () => {
    const second = await serveOn(db.url);
    served.push(second);
    const statuses = await readAcknowledged(second, token, records);
    for (const record of records) {
      if (typeof record.executed !== 'object' || record.executed.status !== 200) continue;
      assert.equal(
        statuses.get(record.paymentId!),
        record.executed.transactionStatus,
        `${record.paymentId}: the status it was answered`,
      );
    }
    await assertLedgerSound(db);
  });

  test('what the kill cut off is executed again: each payment booked once', async () => {
    const second = served.at(-1)!;
    for (const record of records) {
      if (record.psuToken === undefined) continue;
      const answer = await second.client.execute(PRODUCT, record.paymentId!, record.psuToken);
      assert.deepEqual(
        { status: answer.status, body: answer.body },
        { status: 200, body: { paymentId: record.paymentId, transactionStatus: 'ACCC' } },
      );
    }
    await assertLedgerSound(db);
    const authorized = records.filter((record) => record.psuToken !== undefined).map((r) => r.paymentId);
    const booked = await db.query<{ payment_id: string }>(
      'SELECT payment_id FROM bookings WHERE payment_id = ANY($1::text[])',
      [authorized],
    );
    assert.equal(booked.length, authorized.length, 'every authorized payment booked, once');
  });
});

function countExecuted(records: readonly PaymentRecord[]): number {
  return records.filter((record) => typeof record.executed === 'object' && record.executed.status === 200)
    .length;
}
