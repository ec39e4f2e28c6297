// Seals (issue 39): a backlog larger than one seal takes is sealed in several, chained, and a record
// changed in any of them is named; seals made in format 1 by the first version of the trail (a JSON
// array per record, a MAC without the format), in format 2 by the second (every seq listed) and in
// format 3 by the third (the row's text) still verify, and the seals made now (format 4, the row's
// binary form) chain onto them.
// On PGlite, and on PostgreSQL when TEST_DATABASE_URL is set.
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { type SQL, sql } from 'drizzle-orm';
import type { AuditEvent } from '../../src/domain/audit.ts';
import { SEAL_FORMAT } from '../../src/store/audit/formats.ts';
import { recordEvents } from '../../src/store/audit/record.ts';
import { SEAL_LIMIT, sealAll } from '../../src/store/audit/seal.ts';
import { verifyTrail } from '../../src/store/audit/verify.ts';
import { startUnsealedGateway } from '../helpers/audit.ts';
import { backends, type Gateway, queryRows } from '../helpers/gateway.ts';

function events(count: number, correlation: string): AuditEvent[] {
  return Array.from({ length: count }, (_, index) => ({
    event: 'payment.initiated',
    outcome: 'ACTC',
    resource: `payment-${correlation}-${index}`,
    appId: 'app-1',
    address: '192.0.2.7',
    // A value that a TPP chooses: quotes, a comma and parentheses must not shift a field.
    correlationId: `${correlation} "x",(${index})`,
    detail: { product: 'handelsbanken-domestic-credit-transfer' },
  }));
}

interface SealRow {
  from: string;
  to: string;
  count: number;
  format: number;
  listed: number;
}

/** Changes the seal at `from` (`change`: SQL of a SET list), finds it refused as altered, puts it back. */
async function expectSealAltered(gateway: Gateway, key: Buffer, from: string, change: SQL, restore: SQL) {
  await gateway.store.db.execute(sql`UPDATE audit_seals SET ${change} WHERE from_seq = ${from}::bigint`);
  assert.deepEqual(await verifyTrail(gateway.store.db, key), {
    ok: false,
    seq: from,
    problem: 'seal altered',
  });
  await gateway.store.db.execute(sql`UPDATE audit_seals SET ${restore} WHERE from_seq = ${from}::bigint`);
}

function seals(gateway: Gateway): Promise<SealRow[]> {
  return queryRows<SealRow>(
    gateway.store,
    sql`SELECT from_seq::text AS "from", to_seq::text AS "to", count, format, cardinality(seqs) AS listed
      FROM audit_seals ORDER BY from_seq`,
  );
}

/**
 * A seal of every record so far as the first version made it (format 1, its SQL and MAC as they
 * were), for a trail that version began: the digest of each record's JSON array, a MAC over the
 * previous MAC, the range, the numbers and the digests.
 */
async function sealAsFormatOne(gateway: Gateway, key: Buffer): Promise<{ to: number; count: number }> {
  const [range] = await queryRows<{ to: string; seqs: string; digests: string; count: number }>(
    gateway.store,
    sql`SELECT max(seq)::text AS "to", string_agg(seq::text, ',' ORDER BY seq) AS seqs, count(*)::int AS count,
          string_agg(encode(substring(sha256(convert_to(jsonb_build_array(seq, xid::text,
            at AT TIME ZONE 'UTC', event, outcome, resource, tpp_id, app_id, certificate, psu_id, address,
            correlation_id, detail)::text, 'UTF8')) from 1 for 16), 'hex'), '' ORDER BY seq) AS digests
        FROM audit_events`,
  );
  const { to, seqs, digests, count } = range!;
  const mac = createHmac('sha256', key).update(`|1|${to}|${seqs}|${digests}`).digest('hex');
  await gateway.store.db.execute(sql`INSERT INTO audit_seals (from_seq, to_seq, count, seqs, digests, prev_mac, mac)
    VALUES (1, ${to}::bigint, ${count}, ${`{${seqs}}`}::bigint[], decode(${digests}, 'hex'), NULL, decode(${mac}, 'hex'))`);
  return { to: Number(to), count };
}

for (const backend of backends()) {
  describe(`audit seals on ${backend}`, () => {
    let gateway: Gateway;
    let key: Buffer;
    before(async () => {
      ({ gateway, key } = await startUnsealedGateway(backend));
    });
    after(() => gateway.close());

    test('a trail begun by the first version verifies, with the seals made now chained onto its own', async () => {
      // The gateway's start recorded its own events (the sandbox app's registration): sealed with these.
      await recordEvents(gateway.store.db, events(3, 'first-version'));
      const first = await sealAsFormatOne(gateway, key);
      // More than one seal takes, recorded after the first version's seal and sealed as the second
      // version did (format 2), then more than one seal takes again, sealed as now.
      await recordEvents(gateway.store.db, events(SEAL_LIMIT + 2, 'second-version'));
      await sealAll(gateway.store.db, key, { format: 2 });
      await recordEvents(gateway.store.db, events(SEAL_LIMIT + 3, 'third-version'));
      await sealAll(gateway.store.db, key, { format: 3 });
      await recordEvents(gateway.store.db, events(4, 'now'));
      await sealAll(gateway.store.db, key);

      const made = await seals(gateway);
      const at = (offset: number) => String(first.to + offset);
      assert.equal(SEAL_FORMAT, 4);
      assert.deepEqual(made, [
        { from: '1', to: at(0), count: first.count, format: 1, listed: first.count },
        { from: at(1), to: at(SEAL_LIMIT), count: SEAL_LIMIT, format: 2, listed: SEAL_LIMIT },
        { from: at(SEAL_LIMIT + 1), to: at(SEAL_LIMIT + 2), count: 2, format: 2, listed: 2 },
        // Format 3 lists no seq of a range that lacks none.
        { from: at(SEAL_LIMIT + 3), to: at(2 * SEAL_LIMIT + 2), count: SEAL_LIMIT, format: 3, listed: 0 },
        { from: at(2 * SEAL_LIMIT + 3), to: at(2 * SEAL_LIMIT + 5), count: 3, format: 3, listed: 0 },
        { from: at(2 * SEAL_LIMIT + 6), to: at(2 * SEAL_LIMIT + 9), count: 4, format: 4, listed: 0 },
      ]);
      assert.deepEqual(await verifyTrail(gateway.store.db, key), {
        ok: true,
        seals: 6,
        records: first.count + 2 * SEAL_LIMIT + 9,
      });

      // A record in the first version's seal, one in the second's, one in the third's, then one in the
      // seal made now, changed and put back; then one of the last seal deleted and put back.
      for (const seq of [at(-1), at(SEAL_LIMIT + 2), at(2 * SEAL_LIMIT + 4), at(2 * SEAL_LIMIT + 8)]) {
        await gateway.store.db.execute(
          sql`UPDATE audit_events SET correlation_id = correlation_id || ' ' WHERE seq = ${seq}::bigint`,
        );
        assert.deepEqual(await verifyTrail(gateway.store.db, key), { ok: false, seq, problem: 'changed' });
        await gateway.store.db.execute(
          sql`UPDATE audit_events SET correlation_id = rtrim(correlation_id) WHERE seq = ${seq}::bigint`,
        );
      }
      assert.equal((await verifyTrail(gateway.store.db, key)).ok, true);
      // Format 4 takes the time in microseconds: one more is a change.
      const moved = at(2 * SEAL_LIMIT + 7);
      await gateway.store.db.execute(
        sql`UPDATE audit_events SET at = at + interval '1 microsecond' WHERE seq = ${moved}::bigint`,
      );
      assert.deepEqual(await verifyTrail(gateway.store.db, key), {
        ok: false,
        seq: moved,
        problem: 'changed',
      });
      await gateway.store.db.execute(
        sql`UPDATE audit_events SET at = at - interval '1 microsecond' WHERE seq = ${moved}::bigint`,
      );
      assert.equal((await verifyTrail(gateway.store.db, key)).ok, true);
      const deleted = at(2 * SEAL_LIMIT + 8);
      await gateway.store.db.execute(sql`CREATE TABLE audit_kept AS
        SELECT * FROM audit_events WHERE seq = ${deleted}::bigint`);
      await gateway.store.db.execute(sql`DELETE FROM audit_events WHERE seq = ${deleted}::bigint`);
      assert.deepEqual(await verifyTrail(gateway.store.db, key), {
        ok: false,
        seq: deleted,
        problem: 'deleted',
      });
      await gateway.store.db.execute(sql`INSERT INTO audit_events SELECT * FROM audit_kept`);
      await gateway.store.db.execute(sql`DROP TABLE audit_kept`);
      assert.equal((await verifyTrail(gateway.store.db, key)).ok, true);

      // A format-3 seal's count is under its MAC too (a seal listing no seq takes its range's).
      const last = at(2 * SEAL_LIMIT + 3);
      for (const count of [0, 2])
        await expectSealAltered(gateway, key, last, sql`count = ${count}`, sql`count = 3`);
      assert.equal((await verifyTrail(gateway.store.db, key)).ok, true);

      // A seal's format is under its MAC: read as another format's, it is refused as altered.
      const fourth = at(2 * SEAL_LIMIT + 6);
      for (const [seal, other, own] of [
        [at(SEAL_LIMIT + 1), 1, 2],
        [fourth, 3, 4],
      ] as const) {
        await expectSealAltered(gateway, key, seal, sql`format = ${other}`, sql`format = ${own}`);
        assert.equal((await verifyTrail(gateway.store.db, key)).ok, true);
      }
      // From format 4 the seal's first and last time are under its MAC: export and retention go by them.
      for (const column of ['first_at', 'last_at']) {
        const time = sql.identifier(column);
        await expectSealAltered(
          gateway,
          key,
          fourth,
          sql`${time} = ${time} + interval '1 microsecond'`,
          sql`${time} = ${time} - interval '1 microsecond'`,
        );
      }
      assert.equal((await verifyTrail(gateway.store.db, key)).ok, true);
    });

    test('a seal of a format this version does not know is refused, not passed', async () => {
      await recordEvents(gateway.store.db, events(1, 'unknown-format'));
      await sealAll(gateway.store.db, key);
      const last = (await seals(gateway)).at(-1)!;
      await gateway.store.db.execute(
        sql`UPDATE audit_seals SET format = 9 WHERE from_seq = ${last.from}::bigint`,
      );
      await assert.rejects(
        verifyTrail(gateway.store.db, key),
        /audit seal format 9 is unknown to this version/,
      );
      await gateway.store.db.execute(
        sql`UPDATE audit_seals SET format = ${SEAL_FORMAT} WHERE from_seq = ${last.from}::bigint`,
      );
    });
  });
}
