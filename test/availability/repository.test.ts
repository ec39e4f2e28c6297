// The statistics' rows on PGlite and PostgreSQL: two processes' counts of one minute are added into one
// row (never replaced), a probe outcome written twice (a retried flush) is kept once.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  addMinutes,
  addProbeOutcomes,
  latencyBetween,
  minutesBetween,
  probeOutcomesBetween,
} from '../../src/store/availability-repository.ts';
import { backends, openTestStore } from '../helpers/gateway.ts';

const minute = new Date('2026-03-02T10:00:00Z');
const from = new Date('2026-03-02T00:00:00Z');
const to = new Date('2026-03-03T00:00:00Z');

for (const backend of backends())
  test(`${backend}: counts of one minute from two processes add up; probe outcomes are kept once`, async () => {
    const store = await openTestStore(backend);
    try {
      const counts = (requests: number, buckets: [number, number][]) => ({
        interface: 'payment-initiation',
        minute,
        requests,
        errors5xx: 1,
        errors503: 1,
        totalMs: 10.5,
        buckets: new Map(buckets),
      });
      await addMinutes(store.db, [
        counts(3, [
          [20, 2],
          [30, 1],
        ]),
      ]);
      await addMinutes(store.db, [
        counts(2, [
          [20, 1],
          [40, 1],
        ]),
      ]);
      assert.deepEqual(await minutesBetween(store.db, from, to), [
        { interface: 'payment-initiation', minute, requests: 5, errors5xx: 2, errors503: 2, totalMs: 21 },
      ]);
      const latency = await latencyBetween(store.db, from, to);
      assert.deepEqual(
        latency.map((row) => [row.bucket, row.answers]).sort((a, b) => a[0]! - b[0]!),
        [
          [20, 3],
          [30, 1],
          [40, 1],
        ],
      );
      const outcome = {
        probeId: 'p1',
        interface: 'authorization',
        sentAt: minute,
        answered: false,
        statusCode: null,
        latencyMs: 1000,
        intervalMs: 200,
      };
      await addProbeOutcomes(store.db, [outcome]);
      await addProbeOutcomes(store.db, [
        outcome,
        { ...outcome, sentAt: new Date(minute.getTime() + 200), answered: true, statusCode: 401 },
      ]);
      assert.deepEqual(await probeOutcomesBetween(store.db, from, to), [
        { interface: 'authorization', sentAt: minute, answered: false, intervalMs: 200 },
        {
          interface: 'authorization',
          sentAt: new Date(minute.getTime() + 200),
          answered: true,
          intervalMs: 200,
        },
      ]);
      // Counts that break the rule (more 503s than 5xx) are refused by the table.
      await assert.rejects(addMinutes(store.db, [{ ...counts(1, []), errors5xx: 0 }]));
      // A write whose histogram fails adds nothing: the recorder writes it again at the next flush,
      // and minutes added the first time would be counted twice.
      const later = new Date(minute.getTime() + 60_000);
      await assert.rejects(addMinutes(store.db, [{ ...counts(4, [[161, 4]]), minute: later }]));
      assert.deepEqual(
        (await minutesBetween(store.db, from, to)).map((row) => [row.minute, row.requests]),
        [[minute, 5]],
      );
    } finally {
      await store.close();
    }
  });
