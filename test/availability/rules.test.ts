// EBA/GL/2018/07's downtime rule, the histogram's percentile and the routes' interfaces.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import {
  bucketOf,
  bucketUpperMs,
  downSpans,
  interfaceOfRoute,
  overlapMs,
  type ProbeOutcome,
  percentileMs,
  unmonitoredSpans,
} from '../../src/domain/availability.ts';

/** Outcomes one second apart from t=0: 'o' answered, 'x' not. */
const outcomes = (pattern: string): ProbeOutcome[] =>
  [...pattern].map((c, i) => ({ at: i * 1000, answered: c === 'o', intervalMs: 1000 }));

test('four unanswered requests in a row are no downtime; five are, from the first until the next answer', () => {
  assert.deepEqual(downSpans(outcomes('oxxxxo')), []);
  assert.deepEqual(downSpans(outcomes('oxxxxxoo')), [{ from: 1000, to: 6000 }]);
  assert.deepEqual(downSpans(outcomes('xxxxxxxxoxxxxoxxxxx')), [
    { from: 0, to: 8000 },
    { from: 14_000, to: 19_000 },
  ]);
});

test('a run still under way at the end lasts until its last request plus the interval', () => {
  assert.deepEqual(downSpans(outcomes('ooxxxxx')), [{ from: 2000, to: 7000 }]);
});

test('a run ends where the probe stopped watching: the gap is unmonitored, not down', () => {
  // Five failures, then the probe is away for an hour and comes back to an answer.
  const gap = [...outcomes('oxxxxx'), { at: 3_600_000, answered: true, intervalMs: 1000 }];
  assert.deepEqual(downSpans(gap), [{ from: 1000, to: 6000 }]);
  // Failures on either side of a gap are not five in a row.
  const split = [...outcomes('oxxx'), ...outcomes('xxo').map((o) => ({ ...o, at: o.at + 3_600_000 }))];
  assert.deepEqual(downSpans(split), []);
  // A late probe (within twice the interval) is no gap.
  const late = outcomes('oxxxxxo').map((o) => (o.at >= 4000 ? { ...o, at: o.at + 900 } : o));
  assert.deepEqual(downSpans(late), [{ from: 1000, to: 6900 }]);
});

test('time no probe watched is unmonitored; one late probe is no gap', () => {
  const records = [0, 1000, 2500, 10_000].map((at) => ({ at, answered: true, intervalMs: 1000 }));
  assert.deepEqual(unmonitoredSpans(records, { from: 0, to: 15_000 }), [
    { from: 4500, to: 10_000 },
    { from: 12_000, to: 15_000 },
  ]);
  assert.deepEqual(unmonitoredSpans([], { from: 0, to: 5 }), [{ from: 0, to: 5 }]);
  assert.equal(
    overlapMs(
      [
        { from: 0, to: 10 },
        { from: 20, to: 30 },
      ],
      { from: 5, to: 25 },
    ),
    10,
  );
});

test('the 95th percentile is the nearest rank, at most 9.05% above the true time and never below', () => {
  fc.assert(
    fc.property(
      fc.array(fc.double({ min: 0.01, max: 60_000, noNaN: true }), { minLength: 1, maxLength: 300 }),
      (times) => {
        const histogram = new Map<number, number>();
        for (const ms of times) histogram.set(bucketOf(ms), (histogram.get(bucketOf(ms)) ?? 0) + 1);
        const sorted = [...times].sort((a, b) => a - b);
        const exact = sorted[Math.ceil(0.95 * sorted.length) - 1]!;
        const reported = percentileMs(histogram, 95)!;
        assert.ok(reported >= Math.max(1, exact) - 0.05, `${reported} below ${exact}`);
        assert.ok(reported <= Math.max(1, exact) * 2 ** (1 / 8) + 0.05, `${reported} too far above ${exact}`);
      },
    ),
  );
  // 19 answers of 10 ms and one of 900 ms: the 19th of 20 is 10 ms, in the bucket up to 2^(27/8) ms.
  const histogram = new Map([
    [bucketOf(10), 19],
    [bucketOf(900), 1],
  ]);
  assert.equal(bucketOf(10), 27);
  assert.equal(percentileMs(histogram, 95), Math.round(bucketUpperMs(27) * 10) / 10);
  assert.equal(percentileMs(histogram, 95), 10.4);
  assert.equal(percentileMs(new Map(), 95), undefined);
});

test('routes are classed by their pattern into the four interfaces, the rest into none', () => {
  const cases: [string, string | undefined][] = [
    ['/psd2/v1/payments/:paymentProduct', 'payment-initiation'],
    ['/psd2/se/v2/payments/:customerType/single/:paymentProduct', 'payment-initiation'],
    ['/psd2/se/v2/payments/private/signing-basket', 'payment-initiation'],
    ['/psd2/gb/v1/payments/:paymentProduct/:paymentId/status', 'payment-initiation'],
    ['/psd2/v1/consents/:consentId', 'account-information'],
    ['/psd2/v2/accounts/:accountId/transactions', 'account-information'],
    ['/psd2/v1/card-accounts', 'account-information'],
    ['/psd2/se/v2/payments/private/accounts/shorttermconsents', 'account-information'],
    ['/psd2/v1/funds-confirmations', 'confirmation-of-funds'],
    ['/oauth2/token/1.0', 'authorization'],
    ['/refresh/oauth2/token/1.0', 'authorization'],
    ['/decoupled/eid/initAuthorization/2.0', 'authorization'],
    ['/psu/login', 'authorization'],
    ['/psu/dashboard', undefined],
    ['/psu/dashboard/consents/:consentId/withdraw', undefined],
    ['/bank/api/psd2/v1/payments/:paymentProduct', 'payment-initiation'],
    ['/psd2/v1/third-parties', undefined],
    ['/healthz', undefined],
    ['/sandbox/reset', undefined],
    ['unmatched', undefined],
  ];
  assert.deepEqual(
    cases.map(([route]) => [route, interfaceOfRoute(route)]),
    cases,
  );
});
