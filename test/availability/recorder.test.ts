// The gateway's counts for the statistics: per interface and minute in memory, written at each flush;
// the probe's requests and the routes of no interface left out; a flush that fails keeps its counts.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type MinuteCounts, PROBE_APP_ID } from '../../src/domain/availability.ts';
import { availabilityRecorder } from '../../src/http/availability-recorder.ts';

const APP = '5ca1ab1e5ca1ab1e5ca1ab1e5ca1ab1e';

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
  recorder.answered('/psd2/v1/payments/:paymentProduct', 201, 12, 'tpp/1.0', APP);
  recorder.answered('/psd2/v1/payments/:paymentProduct', 503, 3, undefined, APP);
  recorder.answered('/psd2/v1/accounts', 500, 40, undefined, undefined);
  // The probe's: its User-Agent and its app.
  recorder.answered('/psd2/v1/accounts', 401, 2, 'psd2-gateway-probe/1', PROBE_APP_ID);
  recorder.answered('/healthz', 200, 1, undefined, APP);
  recorder.answered('/psu/dashboard', 200, 1, undefined, undefined);
  await recorder.flush();
  assert.deepEqual(
    errors.map((e) => (e as Error).message),
    ['database away'],
  );
  assert.equal(written.length, 0, 'written while the database was away');
  fail = false;
  recorder.answered('/psd2/v1/payments/:paymentProduct', 400, 1, undefined, APP);
  // A TPP that sends the probe's User-Agent with its own app is counted all the same.
  recorder.answered('/psd2/v1/accounts', 500, 8, 'psd2-gateway-probe/1', APP);
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
      requests: 2,
      errors5xx: 2,
      errors503: 0,
      totalMs: 48,
      buckets: [
        [43, 1],
        [24, 1],
      ],
    },
  });
  // Nothing left: closing again writes nothing.
  await recorder.flush();
  assert.equal(written.length, 1);
});

test('past the bound while the database is away, the oldest minutes are dropped, not those that came during the write', async (t) => {
  t.mock.timers.enable({ apis: ['Date'], now: 0 });
  const written: MinuteCounts[] = [];
  let fail = true;
  let release: () => void = () => {};
  let writing: Promise<void> = Promise.resolve();
  const recorder = availabilityRecorder(
    async (minutes) => {
      await writing;
      if (fail) throw new Error('database away');
      written.push(...minutes);
    },
    { flushMs: 600_000, onError: () => {} },
  );
  const route = '/psd2/v1/payments/:paymentProduct';
  // A day of minutes for the four interfaces (the bound), kept after a failed write.
  const routes = [route, '/psd2/v1/accounts', '/psd2/v1/funds-confirmations', '/oauth2/token/1.0'];
  for (let minute = 0; minute < 1440; minute += 1) {
    t.mock.timers.setTime(minute * 60_000);
    for (const each of routes) recorder.answered(each, 200, 1, undefined, APP);
  }
  await recorder.flush();
  // The next write waits; meanwhile an answer of a new minute comes; then the write fails.
  writing = new Promise((resolve) => {
    release = resolve;
  });
  const flushed = recorder.flush();
  // The write has begun (it took the counts) and waits.
  await new Promise(setImmediate);
  t.mock.timers.setTime(1440 * 60_000);
  recorder.answered(route, 503, 1, undefined, APP);
  release();
  await flushed;
  fail = false;
  writing = Promise.resolve();
  await recorder.close();
  const minutes = written
    .filter((row) => row.interface === 'payment-initiation')
    .map((row) => row.minute.getTime() / 60_000);
  assert.equal(written.length, 4 * 1440);
  assert.equal(Math.min(...minutes), 1, 'the oldest minute is the one dropped');
  assert.deepEqual(
    written
      .filter((row) => row.minute.getTime() === 1440 * 60_000)
      .map((row) => [row.interface, row.errors503]),
    [['payment-initiation', 1]],
  );
});
