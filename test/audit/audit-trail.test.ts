// The audit trail (issue 39): the records real HTTP calls leave, with their actors; sealing and
// verifying, and the first record named after an UPDATE, a DELETE and an INSERT made with SQL; the
// export's filters; two gateways writing at once; retention. On PGlite, and on PostgreSQL when
// TEST_DATABASE_URL is set.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { recordEvents } from '../../src/store/audit/record.ts';
import { sealAll } from '../../src/store/audit/seal.ts';
import { applyRetention, auditKey, exportEvents } from '../../src/store/audit/trail.ts';
import { verifyTrail } from '../../src/store/audit/verify.ts';
import { auditRecords, startUnsealedGateway } from '../helpers/audit.ts';
import { backends, type Gateway, queryRows, startGatewayPair } from '../helpers/gateway.ts';
import { domestic } from '../helpers/payments.ts';

const DOMESTIC = 'handelsbanken-domestic-credit-transfer';
const PATH = `/psd2/se/v2/payments/private/single/${DOMESTIC}`;

function records(gateway: Gateway, resource?: string) {
  return auditRecords(gateway, resource === undefined ? {} : { resource });
}

/** A payment initiated under the correlation id `requestId`, authorized and executed: its id. */
async function fiveSteps(gateway: Gateway, requestId: string): Promise<string> {
  const token = await gateway.client.clientCredentialsToken();
  const initiated = await gateway.client.initiate(token, {
    path: PATH,
    body: domestic(),
    headers: { 'TPP-Request-ID': requestId },
  });
  assert.equal(initiated.status, 200, JSON.stringify(initiated.body));
  const paymentId = initiated.body.paymentId;
  const executed = await gateway.client.authorizeAndExecute(DOMESTIC, paymentId);
  assert.equal(executed.status, 200, JSON.stringify(executed.body));
  return paymentId;
}

for (const backend of backends()) {
  describe(`audit trail on ${backend}`, () => {
    let gateway: Gateway;
    let key: Buffer;
    before(async () => {
      ({ gateway, key } = await startUnsealedGateway(backend));
    });
    after(() => gateway.close());

    test('a payment initiated and executed is recorded with its actors, in order', async () => {
      const paymentId = await fiveSteps(gateway, 'audit-request-1');
      const rows = await records(gateway, paymentId);
      const app = gateway.sandboxApp.clientId;
      assert.deepEqual(
        rows.map(({ seq: _, ...row }) => row),
        [
          {
            event: 'payment.initiated',
            outcome: 'ACTC',
            resource: paymentId,
            tppId: null,
            appId: app,
            certificate: null,
            psuId: rows[0]!.psuId,
            address: '127.0.0.1',
            correlationId: 'audit-request-1',
            detail: { product: DOMESTIC },
          },
          ...rows
            .slice(1)
            .map((row) => ({ ...row, seq: undefined }))
            .map(({ seq: _, ...row }) => row),
        ],
      );
      assert.ok(rows[0]!.psuId !== null, 'the initiation names the PSU of the debtor account');
      assert.deepEqual(
        rows.slice(1).map((row) => [row.event, row.outcome, row.appId, row.psuId]),
        [['payment.booked', 'ACCC', app, rows[0]!.psuId]],
      );
    });

    test('verify passes on a whole trail and names the record changed, deleted or inserted', async () => {
      await fiveSteps(gateway, 'audit-request-2');
      await sealAll(gateway.store.db, key);
      const whole = await verifyTrail(gateway.store.db, key);
      assert.equal(whole.ok, true);
      const [victim] = await queryRows<{ seq: string }>(
        gateway.store,
        sql`SELECT min(seq)::text AS seq FROM audit_events WHERE event = 'payment.booked'`,
      );
      const seq = victim!.seq;
      await gateway.store.db.execute(
        sql`CREATE TABLE audit_saved AS SELECT * FROM audit_events WHERE seq = ${seq}::bigint`,
      );

      await gateway.store.db.execute(
        sql`UPDATE audit_events SET outcome = 'RJCT' WHERE seq = ${seq}::bigint`,
      );
      assert.deepEqual(await verifyTrail(gateway.store.db, key), { ok: false, seq, problem: 'changed' });
      await gateway.store.db.execute(
        sql`UPDATE audit_events SET outcome = 'ACCC' WHERE seq = ${seq}::bigint`,
      );
      assert.equal((await verifyTrail(gateway.store.db, key)).ok, true);

      await gateway.store.db.execute(sql`DELETE FROM audit_events WHERE seq = ${seq}::bigint`);
      assert.deepEqual(await verifyTrail(gateway.store.db, key), { ok: false, seq, problem: 'deleted' });
      await gateway.store.db.execute(sql`INSERT INTO audit_events SELECT * FROM audit_saved`);
      assert.equal((await verifyTrail(gateway.store.db, key)).ok, true);

      // A seq no record took (a rolled-back transaction's), then a record slipped into it afterwards.
      const [gap] = await queryRows<{ seq: string }>(
        gateway.store,
        sql`SELECT nextval('audit_events_seq_seq')::text AS seq`,
      );
      await fiveSteps(gateway, 'audit-request-3');
      await sealAll(gateway.store.db, key);
      assert.equal((await verifyTrail(gateway.store.db, key)).ok, true);
      await gateway.store.db.execute(
        sql`INSERT INTO audit_events (seq, event, outcome) VALUES (${gap!.seq}::bigint, 'payment.booked', 'ACSC')`,
      );
      assert.deepEqual(await verifyTrail(gateway.store.db, key), {
        ok: false,
        seq: gap!.seq,
        problem: 'inserted out of order',
      });
      await gateway.store.db.execute(sql`DELETE FROM audit_events WHERE seq = ${gap!.seq}::bigint`);
      await gateway.store.db.execute(sql`DROP TABLE audit_saved`);
      assert.equal((await verifyTrail(gateway.store.db, key)).ok, true);
    });

    test('export filters by period, resource and PSU', async () => {
      const paymentId = await fiveSteps(gateway, 'audit-request-4');
      const all = await records(gateway, paymentId);
      const from = new Date(Date.now() - 60_000);
      const to = new Date(Date.now() + 60_000);
      const exported = [];
      for await (const event of exportEvents(gateway.store.db, { from, to, resource: paymentId }))
        exported.push(event);
      assert.deepEqual(
        exported.map((event) => [event.seq, event.event, event.resource]),
        all.map((row) => [row.seq, row.event, paymentId]),
      );
      const none = [];
      for await (const event of exportEvents(gateway.store.db, {
        from,
        to,
        resource: paymentId,
        psuId: 'nobody',
      }))
        none.push(event);
      assert.deepEqual(none, []);
      const before = [];
      for await (const event of exportEvents(gateway.store.db, { from: new Date(0), to: from }))
        before.push(event);
      assert.deepEqual(before, []);
    });

    test('export pages by the number, across a change of its digits: every record once, in order', async () => {
      // Records until the seqs pass a power of ten, exported two to a page: ordered as text, "10" came
      // before "9" and a page's last seq skipped records.
      const resource = `paging-${Date.now()}`;
      const [{ last } = { last: '0' }] = await queryRows<{ last: string }>(
        gateway.store,
        sql`SELECT COALESCE(max(seq), 0)::text AS last FROM audit_events`,
      );
      const count = 10 ** String(last).length - Number(last) + 3;
      await recordEvents(
        gateway.store.db,
        Array.from({ length: count }, (_, index) => ({
          event: 'test.paging',
          outcome: String(index),
          resource,
        })),
      );
      const from = new Date(Date.now() - 60_000);
      const to = new Date(Date.now() + 60_000);
      const exported = [];
      for await (const event of exportEvents(gateway.store.db, { from, to, resource }, 2))
        exported.push(event.outcome);
      assert.deepEqual(
        exported,
        Array.from({ length: count }, (_, index) => String(index)),
      );
    });

    test("export finds a period by the seals' times: records out of time order, a seal without a first time, records not sealed", async () => {
      // The records have no time index (migration 0043): export reads the seals from the first whose
      // last time is in the period to the last whose first time is, and every record not yet sealed.
      const resource = `period-${Date.now()}`;
      const now = Date.now();
      const day = (days: number) => new Date(now - days * 86_400_000);
      const write = async (label: string, days: number) =>
        queryRows<{ seq: string }>(
          gateway.store,
          sql`INSERT INTO audit_events (at, event, outcome, resource)
            VALUES (${day(days).toISOString()}::timestamptz, 'test.period', ${label}, ${resource})
            RETURNING seq::text AS seq`,
        );
      await sealAll(gateway.store.db, key);
      await write('r1', 10);
      await write('r2', 1);
      await sealAll(gateway.store.db, key);
      // Older than the seal before's last record.
      await write('r3', 5);
      await write('r4', 3);
      await sealAll(gateway.store.db, key);
      // A seal made before migration 0043 (in format 3, whose MAC has no times) has no first time.
      const [seal5] = await write('r5', 7);
      await sealAll(gateway.store.db, key, { format: 3 });
      await gateway.store.db.execute(
        sql`UPDATE audit_seals SET first_at = NULL WHERE ${seal5!.seq}::bigint BETWEEN from_seq AND to_seq`,
      );
      // Not sealed yet.
      await write('r6', 6);
      await write('r7', 2);
      const period = async (from: number, to: number) => {
        const found = [];
        for await (const event of exportEvents(gateway.store.db, { from: day(from), to: day(to), resource }))
          found.push(event.outcome);
        return found;
      };
      assert.deepEqual(await period(6, 4), ['r3', 'r6']);
      assert.deepEqual(await period(8, 6.5), ['r5']);
      assert.deepEqual(await period(11, 0), ['r1', 'r2', 'r3', 'r4', 'r5', 'r6', 'r7']);
      assert.deepEqual(await period(1, 0), ['r2']);
      assert.deepEqual(await period(2.5, 1.5), ['r7']);
      assert.deepEqual(await period(20, 15), []);
      // The seals' times as the sealer wrote them.
      const times = await queryRows<{ first: string | null; last: string }>(
        gateway.store,
        sql`SELECT first_at AS first, last_at AS last FROM audit_seals ORDER BY from_seq DESC LIMIT 3`,
      );
      assert.deepEqual(
        times.map(({ first, last }) => [first && new Date(first).getTime(), new Date(last).getTime()]),
        [
          [null, day(7).getTime()],
          [day(5).getTime(), day(3).getTime()],
          [day(10).getTime(), day(1).getTime()],
        ],
      );
      assert.equal((await verifyTrail(gateway.store.db, key)).ok, true);
    });

    test('retention deletes whole old seals, records the cut, and verify still passes', async () => {
      await fiveSteps(gateway, 'audit-request-5');
      await sealAll(gateway.store.db, key);
      const deleted = await applyRetention(gateway.store.db, 1, new Date(Date.now() + 3 * 86_400_000));
      assert.ok(deleted > 0, 'retention deleted the records of the old seals');
      await sealAll(gateway.store.db, key);
      const verdict = await verifyTrail(gateway.store.db, key);
      assert.equal(verdict.ok, true, JSON.stringify(verdict));
      const [cut] = await queryRows<{ event: string; outcome: string }>(
        gateway.store,
        sql`SELECT event, outcome FROM audit_events WHERE event = 'audit.retention'`,
      );
      assert.deepEqual(cut, { event: 'audit.retention', outcome: 'ok' });
      // The oldest kept seal without its retention record: records before it were deleted.
      await gateway.store.db.execute(
        sql`DELETE FROM audit_seals WHERE from_seq = (SELECT min(from_seq) FROM audit_seals)`,
      );
      const broken = await verifyTrail(gateway.store.db, key);
      assert.equal(broken.ok, false);
    });
  });
}

for (const backend of backends()) {
  test(`two gateways on one ${backend} database, sealing as they go, leave a whole trail`, async () => {
    const pair = await startGatewayPair(backend, { config: { auditSealIntervalMs: 20 } });
    try {
      const runs = [];
      for (let i = 0; i < 8; i += 1) {
        runs.push(fiveSteps(pair.first, `first-${i}`), fiveSteps(pair.second, `second-${i}`));
      }
      const ids = await Promise.all(runs);
      const key = await auditKey(pair.store.db, undefined);
      await sealAll(pair.store.db, key);
      const verdict = await verifyTrail(pair.store.db, key);
      assert.equal(verdict.ok, true, JSON.stringify(verdict));
      const [count] = await queryRows<{ n: number }>(
        pair.store,
        sql`SELECT count(*)::int AS n FROM audit_events WHERE event = 'payment.initiated'`,
      );
      assert.equal(count!.n, ids.length);
    } finally {
      await pair.close();
    }
  });
}
