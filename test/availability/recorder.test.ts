// The gateway's counts for the statistics: per interface and minute in memory, written at each flush;
// the probe's requests and the routes of no interface left out; a flush that fails keeps its counts.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { MinuteCounts } from '../../src/domain/availability.ts';
import { availabilityRecorder } from '../../src/http/availability-recorder.ts';

test('answers are added up per interface and minute; a failed write is written with the next', async () => {
  const written: MinuteCounts[][] = [];
  const errors: unknown[] = [];
  let fail = true;
  const recorder = availabilityRecorder(
    async (minutes) => {
      if (fail) throw new Error('database away');
      written.push([...minutes]);
    },
    { flushMs: 600_000, onError: (error) => errors.push(error) },
  );
  recorder.answered('/psd2/v1/payments/:paymentProduct', 201, 12, 'tpp/1.0');
  recorder.answered('/psd2/v1/payments/:paymentProduct', 503, 3, undefined);
  recorder.answered('/psd2/v1/accounts', 500, 40, undefined);
  recorder.answered('/psd2/v1/accounts', 401, 2, 'psd2-gateway-probe/1');
  recorder.answered('/healthz', 200, 1, undefined);
  await recorder.flush();
  assert.deepEqual(
    errors.map((e) => (e as Error).message),
    ['database away'],
  );
  assert.equal(written.length, 0, 'written while the database was away');
  fail = false;
  recorder.answered('/psd2/v1/payments/:paymentProduct', 400, 1, undefined);
  await recorder.close();
  const minute = new Date(Math.floor(Date.now() / 60_000) * 60_000);
  // The test runs within one minute unless it crosses one: then the rows are per minute, summed here.
  type Sum = { interface: string; requests: number; errors5xx: number; errors503: number; totalMs: number };
  const sums = new Map<string, Sum & { buckets: [number, number][] }>();
  for (const row of written.flat()) {
    const sum = sums.get(row.interface) ?? {
      interface: row.interface,
      requests: 0,
      errors5xx: 0,
      errors503: 0,
      totalMs: 0,
      buckets: [],
    };
    sum.requests += row.requests;
    sum.errors5xx += row.errors5xx;
    sum.errors503 += row.errors503;
    sum.totalMs += row.totalMs;
    sum.buckets.push(...row.buckets);
    sums.set(row.interface, sum);
    assert.ok(row.minute.getTime() <= minute.getTime(), 'a minute in the future');
  }
  assert.equal(written.length, 1);
  assert.deepEqual(Object.fromEntries(sums), {
    'payment-initiation': {
      interface: 'payment-initiation',
      requests: 3,
      errors5xx: 1,
      errors503: 1,
      totalMs: 16,
      buckets: [
        [29, 1],
        [13, 1],
        [0, 1],
      ],
    },
    'account-information': {
      interface: 'account-information',
      requests: 1,
      errors5xx: 1,
      errors503: 0,
      totalMs: 40,
      buckets: [[43, 1]],
    },
  });
  // Nothing left: closing again writes nothing.
  await recorder.flush();
  assert.equal(written.length, 1);
});
