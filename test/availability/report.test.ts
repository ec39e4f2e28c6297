// The report's figures from given records: a down run across midnight split between the days, the
// requests, averages, percentiles and error rates per day and for the period, a day not over yet.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildReport, type ReportRecords } from '../../src/cli/availability-report.ts';
import { reportCsv, reportHtml } from '../../src/cli/report-formats.ts';
import { bucketOf } from '../../src/domain/availability.ts';

const at = (iso: string) => new Date(iso);

/** Probes every 10 s from 23:50 on the 1st to 00:10 on the 3rd; unanswered from 23:59:00 to 00:01:00. */
function probes(): ReportRecords['probes'] {
  const list = [];
  for (let t = Date.parse('2026-03-01T23:50:00Z'); t < Date.parse('2026-03-03T00:10:00Z'); t += 10_000) {
    const down = t >= Date.parse('2026-03-01T23:59:00Z') && t < Date.parse('2026-03-02T00:01:00Z');
    list.push({ interface: 'payment-initiation', sentAt: new Date(t), answered: !down, intervalMs: 10_000 });
  }
  return list;
}

const records: ReportRecords = {
  minutes: [
    {
      interface: 'payment-initiation',
      minute: at('2026-03-02T10:00:00Z'),
      requests: 19,
      errors5xx: 2,
      errors503: 1,
      totalMs: 380,
    },
    {
      interface: 'payment-initiation',
      minute: at('2026-03-02T10:01:00Z'),
      requests: 1,
      errors5xx: 0,
      errors503: 0,
      totalMs: 900,
    },
    {
      interface: 'authorization',
      minute: at('2026-03-01T12:00:00Z'),
      requests: 4,
      errors5xx: 0,
      errors503: 0,
      totalMs: 10,
    },
  ],
  latency: [
    {
      interface: 'payment-initiation',
      minute: at('2026-03-02T10:00:00Z'),
      bucket: bucketOf(20),
      answers: 19,
    },
    {
      interface: 'payment-initiation',
      minute: at('2026-03-02T10:01:00Z'),
      bucket: bucketOf(900),
      answers: 1,
    },
    { interface: 'authorization', minute: at('2026-03-01T12:00:00Z'), bucket: bucketOf(2.5), answers: 4 },
  ],
  probes: probes(),
};

const none = {
  requests: 0,
  averageMs: null,
  p95Ms: null,
  errors5xx: 0,
  errors503: 0,
  errorRate5xxPercent: null,
  errorRate503Percent: null,
};
/** Payment initiation's answers on the 2nd of March (the records' minutes above). */
const busy = {
  requests: 20,
  averageMs: 64,
  p95Ms: 20.7,
  errors5xx: 2,
  errors503: 1,
  errorRate5xxPercent: 10,
  errorRate503Percent: 5,
};
const unwatched = (name: string, seconds: number) => ({
  interface: name,
  seconds,
  uptimeSeconds: seconds,
  downtimeSeconds: 0,
  uptimePercent: seconds === 0 ? null : 100,
  downtimePercent: seconds === 0 ? null : 0,
  unmonitoredSeconds: seconds,
  ...none,
});

test('per day and for the period: downtime split at midnight, counts, average, 95th percentile, error rates', () => {
  // The report is made at 12:00 on the 2nd: the 2nd counts half a day, the 3rd none yet.
  const report = buildReport(
    { from: '2026-03-01', to: '2026-03-03', timeZone: 'UTC' },
    records,
    at('2026-03-02T12:00:00Z'),
  );
  assert.deepEqual(report, {
    from: '2026-03-01',
    to: '2026-03-03',
    timeZone: 'UTC',
    p95Precision: 'at most 9.05% above the true value (1 ms at the least)',
    days: [
      {
        date: '2026-03-01',
        interfaces: [
          {
            interface: 'payment-initiation',
            seconds: 86_400,
            uptimeSeconds: 86_340,
            downtimeSeconds: 60,
            uptimePercent: 99.931,
            downtimePercent: 0.069,
            unmonitoredSeconds: 85_800,
            ...none,
          },
          unwatched('account-information', 86_400),
          unwatched('confirmation-of-funds', 86_400),
          {
            ...unwatched('authorization', 86_400),
            requests: 4,
            averageMs: 2.5,
            p95Ms: 2.6,
            errorRate5xxPercent: 0,
            errorRate503Percent: 0,
          },
        ],
      },
      {
        date: '2026-03-02',
        interfaces: [
          {
            interface: 'payment-initiation',
            seconds: 43_200,
            uptimeSeconds: 43_140,
            downtimeSeconds: 60,
            uptimePercent: 99.861,
            downtimePercent: 0.139,
            unmonitoredSeconds: 0,
            ...busy,
          },
          unwatched('account-information', 43_200),
          unwatched('confirmation-of-funds', 43_200),
          unwatched('authorization', 43_200),
        ],
      },
      {
        date: '2026-03-03',
        interfaces: [
          'payment-initiation',
          'account-information',
          'confirmation-of-funds',
          'authorization',
        ].map((name) => unwatched(name, 0)),
      },
    ],
    period: [
      {
        interface: 'payment-initiation',
        seconds: 129_600,
        uptimeSeconds: 129_480,
        downtimeSeconds: 120,
        uptimePercent: 99.907,
        downtimePercent: 0.093,
        unmonitoredSeconds: 85_800,
        ...busy,
      },
      unwatched('account-information', 129_600),
      unwatched('confirmation-of-funds', 129_600),
      {
        ...unwatched('authorization', 129_600),
        requests: 4,
        averageMs: 2.5,
        p95Ms: 2.6,
        errorRate5xxPercent: 0,
        errorRate503Percent: 0,
      },
    ],
  });

  const csv = reportCsv(report).split('\r\n');
  assert.equal(csv.length, 1 + 4 * 4 + 1);
  assert.equal(csv[5], '2026-03-02,payment-initiation,43140,60,99.861,0.139,0,20,64,20.7,2,1,10,5');
  assert.equal(csv[9], '2026-03-03,payment-initiation,0,0,,,0,0,,,0,0,,');
  assert.equal(csv.at(-1), '');

  const html = reportHtml(report);
  assert.ok(
    html.includes(
      '<tr><th scope="row">Payment initiation</th><td>43140</td><td>60</td><td>99.861</td><td>0.139</td><td>0</td><td>20</td><td>64</td><td>20.7</td><td>2</td><td>1</td><td>10</td><td>5</td></tr>',
    ),
    'the 2nd of March has no row for payment initiation',
  );
  assert.equal(html.match(/<caption>/g)?.length, 4);
});

test("days run from midnight to midnight in the bank's time zone, 23 hours on the day clocks go forward", () => {
  const report = buildReport(
    { from: '2026-03-28', to: '2026-03-29', timeZone: 'Europe/Stockholm' },
    {
      minutes: [
        // 23:30 UTC on the 28th is 00:30 on the 29th in Stockholm.
        {
          interface: 'authorization',
          minute: at('2026-03-28T23:30:00Z'),
          requests: 2,
          errors5xx: 0,
          errors503: 0,
          totalMs: 4,
        },
      ],
      latency: [],
      probes: [],
    },
    at('2026-04-01T00:00:00Z'),
  );
  assert.deepEqual(
    report.days.map((day) => [day.date, day.interfaces[3]!.seconds, day.interfaces[3]!.requests]),
    [
      ['2026-03-28', 86_400, 0],
      ['2026-03-29', 82_800, 2],
    ],
  );
  assert.equal(report.timeZone, 'Europe/Stockholm');
});

test("a year's report reads each record once, not once per day (a year of minutes is millions of rows)", () => {
  let reads = 0;
  const counted = <T extends object>(rows: T[]): T[] =>
    new Proxy(rows, {
      get(target, key, receiver) {
        if (typeof key === 'string' && /^\d+$/.test(key)) reads += 1;
        return Reflect.get(target, key, receiver);
      },
    });
  const minute = new Date('2025-06-01T10:00:00Z');
  const report = buildReport(
    { from: '2025-01-01', to: '2025-12-31', timeZone: 'Europe/Stockholm' },
    {
      minutes: counted(
        ['payment-initiation', 'authorization'].map((name) => ({
          interface: name,
          minute,
          requests: 4,
          errors5xx: 1,
          errors503: 0,
          totalMs: 40,
        })),
      ),
      latency: counted([{ interface: 'authorization', minute, bucket: 8, answers: 4 }]),
      probes: [],
    },
    new Date('2026-01-01T00:00:00Z'),
  );
  assert.ok(reads <= 3 * 3, `${reads} reads of 3 records`);
  const june = report.days.find((day) => day.date === '2025-06-01')!;
  assert.deepEqual(
    [june, { interfaces: report.period }].map((window) =>
      window.interfaces.map((f) => [f.interface, f.requests, f.errors5xx, f.averageMs, f.p95Ms]),
    ),
    Array(2).fill([
      ['payment-initiation', 4, 1, 10, null],
      ['account-information', 0, 0, null, null],
      ['confirmation-of-funds', 0, 0, null, null],
      ['authorization', 4, 1, 10, 2],
    ]),
  );
  assert.equal(report.days.filter((day) => day.interfaces.some((f) => f.requests > 0)).length, 1);
});
