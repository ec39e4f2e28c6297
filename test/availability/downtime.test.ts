// The RTS Art. 32 statistics end to end, as a bank runs them: the gateway as a process on a database of
// its own, the probe beside it (every 200 ms, a 1 s timeout: the rule's five requests, in less time), a
// few TPP requests, the gateway killed (-9) for a known time and started again, stopped with SIGTERM
// (its last counts written at shutdown), then `report availability` in JSON, CSV and HTML.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { createFreshDatabase, type FreshDatabase } from '../helpers/fresh-database.ts';
import { backends } from '../helpers/gateway.ts';
import { freePort, type ServeProcess, spawnServe } from '../helpers/serve-process.ts';

const INTERFACES = ['payment-initiation', 'account-information', 'confirmation-of-funds', 'authorization'];
/** What the test sends to each interface (answered 400: no TPP headers, no body); nothing else counts. */
const SENT_BEFORE = {
  'payment-initiation': 2,
  'account-information': 3,
  'confirmation-of-funds': 1,
  authorization: 2,
};
const SENT_AFTER = { 'account-information': 1 } as Record<string, number>;
/**
 * How far the downtime found may be from the one the test saw: a probe in flight at the kill may wait its
 * whole timeout (1 s) before it counts as unanswered, a probe interval on each side, and slack for a
 * loaded machine (a run on 2 busy cores found 8.6 s for 7.6 s away).
 */
const TOLERANCE_S = 2;

async function send(url: string, counts: Record<string, number>): Promise<void> {
  const requests: Record<string, () => Promise<Response>> = {
    'payment-initiation': () => fetch(`${url}/psd2/v1/payments/sepa-credit-transfers/p1/status`),
    'account-information': () => fetch(`${url}/psd2/v1/accounts`),
    'confirmation-of-funds': () => fetch(`${url}/psd2/v1/funds-confirmations`, { method: 'POST' }),
    authorization: () => fetch(`${url}/oauth2/token/1.0`, { method: 'POST' }),
  };
  for (const [name, count] of Object.entries(counts))
    for (let i = 0; i < count; i++) {
      const response = await requests[name]!();
      await response.arrayBuffer();
      assert.equal(response.status, 400, name);
    }
  // Not one of the four interfaces: never counted.
  assert.equal((await fetch(`${url}/healthz`)).status, 200);
}

/** Polls /healthz until it answers 200 (bounded): the moment the gateway answers again. */
async function answersAgain(url: string, boundMs = 60_000): Promise<number> {
  const until = Date.now() + boundMs;
  while (Date.now() < until) {
    const ok = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(1000) }).then(
      (r) => r.status === 200,
      () => false,
    );
    if (ok) return Date.now();
    await sleep(20);
  }
  throw new Error('the gateway did not answer again');
}

async function run(args: readonly string[], env: Record<string, string>) {
  const child = spawnServe(env, args);
  const code = await child.exited(60_000);
  return { code, stdout: child.stdout(), stderr: child.stderr() };
}

for (const backend of backends()) {
  test(`${backend}: the report finds the time the gateway was stopped, and the requests it was sent`, async () => {
    const dir = await mkdtemp(join(tmpdir(), 'availability-'));
    let database: FreshDatabase | undefined;
    const children: ServeProcess[] = [];
    try {
      const gatewayEnv: Record<string, string> =
        backend === 'pglite' ? { DATA_DIR: join(dir, 'gateway') } : {};
      const probeEnv: Record<string, string> = backend === 'pglite' ? { DATA_DIR: join(dir, 'probe') } : {};
      if (backend === 'postgres') {
        database = await createFreshDatabase(process.env.TEST_DATABASE_URL!);
        gatewayEnv.DATABASE_URL = probeEnv.DATABASE_URL = database.url;
      }
      const reportArgs = backend === 'pglite' ? ['--probe-data-dir', join(dir, 'probe')] : [];
      const port = await freePort();
      const url = `http://127.0.0.1:${port}`;
      const firstDay = new Date().toISOString().slice(0, 10);
      const serve = (flushMs: string) => {
        const child = spawnServe({ ...gatewayEnv, PORT: String(port), AVAILABILITY_FLUSH_MS: flushMs });
        children.push(child);
        return child;
      };

      const first = serve('100');
      await first.ready();
      const probe = spawnServe(probeEnv, [
        'probe',
        '--base-url',
        url,
        '--interval-ms',
        '200',
        '--timeout-ms',
        '1000',
        '--flush-ms',
        '300',
      ]);
      children.push(probe);
      const probeSpawnedAt = Date.now();
      const until = Date.now() + 30_000;
      while (!probe.stdout().includes('\n') && probe.child.exitCode === null && Date.now() < until)
        await sleep(25);
      const probeSeenAt = Date.now();
      await sleep(1000); // some rounds answered before the requests
      assert.match(probe.stdout(), /^probing http:\/\/127\.0\.0\.1:\d+ every 200 ms \(timeout 1000 ms\)\n/);
      await send(url, SENT_BEFORE);
      await sleep(500); // flushed (every 100 ms): a kill -9 loses nothing sent before
      const killedAt = Date.now();
      await first.kill();
      await sleep(2000);
      const second = serve('600000'); // written only at its shutdown
      const backAt = await answersAgain(url);
      await second.ready();
      await send(url, SENT_AFTER);
      second.child.kill('SIGTERM');
      assert.equal(await second.exited(), 0);
      const probeStoppedAt = Date.now();
      probe.child.kill('SIGTERM');
      assert.equal(await probe.exited(), 0, probe.stderr());
      const lastDay = new Date().toISOString().slice(0, 10);

      const period = ['report', 'availability', '--from', firstDay, '--to', lastDay, ...reportArgs];
      const reportStartedAt = Date.now();
      // The test's days are UTC's (the gateway's TIME_ZONE is Europe/Stockholm by default).
      const reportEnv = { ...gatewayEnv, TIME_ZONE: 'UTC' };
      const json = await run([...period, '--format', 'json'], reportEnv);
      const reportEndedAt = Date.now();
      assert.equal(json.code, 0, json.stderr);
      const report = JSON.parse(json.stdout);
      const expectedDowntime = (backAt - killedAt) / 1000;
      const timeFields = [
        'seconds',
        'uptimeSeconds',
        'downtimeSeconds',
        'uptimePercent',
        'downtimePercent',
        'unmonitoredSeconds',
        'averageMs',
        'p95Ms',
      ];
      for (const figures of report.period) {
        const name: string = figures.interface;
        assert.ok(
          Math.abs(figures.downtimeSeconds - expectedDowntime) <= TOLERANCE_S,
          `${name}: downtime ${figures.downtimeSeconds} s, the gateway was away ${expectedDowntime} s`,
        );
        // Unwatched: the day before the probe started, and since it stopped (its last record covers 0.4 s).
        const midnight = Date.parse(`${firstDay}T00:00:00Z`);
        const unwatched = [
          (probeSpawnedAt - midnight + reportStartedAt - probeStoppedAt) / 1000 - 0.4 - TOLERANCE_S,
          (probeSeenAt - midnight + reportEndedAt - probeStoppedAt) / 1000 + TOLERANCE_S,
        ];
        if (firstDay === lastDay)
          assert.ok(
            figures.unmonitoredSeconds >= unwatched[0]! && figures.unmonitoredSeconds <= unwatched[1]!,
            `${name}: unmonitored ${figures.unmonitoredSeconds} s, not within ${unwatched}`,
          );
        assert.ok(Math.abs(figures.uptimeSeconds + figures.downtimeSeconds - figures.seconds) < 0.002, name);
        assert.ok(figures.p95Ms >= figures.averageMs / 10 && figures.averageMs > 0, name);
        const requests = (SENT_BEFORE as Record<string, number>)[name]! + (SENT_AFTER[name] ?? 0);
        const rest = Object.fromEntries(Object.entries(figures).filter(([key]) => !timeFields.includes(key)));
        assert.deepEqual(rest, {
          interface: name,
          requests,
          errors5xx: 0,
          errors503: 0,
          errorRate5xxPercent: 0,
          errorRate503Percent: 0,
        });
      }
      assert.deepEqual(
        { ...report, days: report.days.map((d: { date: string }) => d.date), period: report.period.length },
        {
          from: firstDay,
          to: lastDay,
          timeZone: 'UTC',
          p95Precision: 'at most 9.05% above the true value (1 ms at the least)',
          days: [...new Set([firstDay, lastDay])],
          period: 4,
        },
      );

      const csv = await run([...period, '--format', 'csv'], reportEnv);
      assert.equal(csv.code, 0, csv.stderr);
      const lines = csv.stdout.trimEnd().split('\r\n');
      assert.equal(
        lines[0],
        'date,interface,uptime_seconds,downtime_seconds,uptime_percent,downtime_percent,unmonitored_seconds,requests,average_ms,p95_ms,errors_5xx,errors_503,error_rate_5xx_percent,error_rate_503_percent',
      );
      const periodRows = lines.filter((line) => line.startsWith('period,')).map((line) => line.split(','));
      assert.deepEqual(
        periodRows.map((cells) => [cells[1], cells[7], cells.slice(10).join(',')]),
        report.period.map((f: { interface: string; requests: number }) => [
          f.interface,
          String(f.requests),
          '0,0,0,0',
        ]),
      );
      assert.equal(lines.length, 1 + 4 * (report.days.length + 1));

      const html = await run([...period, '--format', 'html'], reportEnv);
      assert.equal(html.code, 0, html.stderr);
      assert.match(html.stdout, /^<!doctype html>\n<html lang="en">/);
      assert.doesNotMatch(html.stdout, /<script|<link|src=|href=/);
      assert.equal(html.stdout.match(/<table>/g)?.length, 1 + report.days.length);
      assert.ok(
        html.stdout.includes(`<caption>Period ${firstDay} to ${lastDay}</caption>`),
        'no period caption',
      );
      for (const figures of report.period)
        assert.ok(
          html.stdout.includes(
            `<td>${figures.requests}</td><td>${figures.averageMs}</td><td>${figures.p95Ms}</td><td>0</td><td>0</td><td>0</td><td>0</td></tr>`,
          ),
          figures.interface,
        );
      assert.deepEqual(
        [...html.stdout.matchAll(/<th scope="row">([^<]+)<\/th>/g)].slice(0, 4).map((m) => m[1]),
        ['Payment initiation', 'Account information', 'Confirmation of funds', 'Authorization'],
      );
      assert.deepEqual(
        INTERFACES,
        report.period.map((f: { interface: string }) => f.interface),
      );
    } finally {
      for (const child of children) await child.kill();
      await database?.drop();
      if (process.env.KEEP_DIR === undefined) await rm(dir, { recursive: true, force: true });
      else console.log(`# kept ${dir}`);
    }
  });
}

test('report availability: a wrong call is a one-line usage error, exit 2', async () => {
  const cases: [string[], string][] = [
    [['report'], 'unknown report (none)'],
    [['report', 'uptime'], 'unknown report uptime'],
    [['report', 'availability', '--to', '2026-01-01'], '--from is required'],
    [
      ['report', 'availability', '--from', '2026-02-30', '--to', '2026-03-01'],
      '--from must be a date YYYY-MM-DD',
    ],
    [
      ['report', 'availability', '--from', '2026-03-02', '--to', '2026-03-01'],
      '--to must not be before --from',
    ],
    [
      ['report', 'availability', '--from', '2025-01-01', '--to', '2026-01-02'],
      'the period must be at most 366 days',
    ],
    [
      ['report', 'availability', '--from', '2026-03-01', '--to', '2026-03-01', '--format', 'pdf'],
      '--format must be one of json, csv, html',
    ],
    [['probe'], '--base-url is required'],
    [['probe', '--base-url', 'ftp://bank'], '--base-url must be an http or https URL'],
    [
      ['probe', '--base-url', 'http://bank', '--interval-ms', '5'],
      '--interval-ms must be a whole number of milliseconds >= 50',
    ],
  ];
  for (const [args, message] of cases) {
    const result = await run(args, {});
    const name = args[0];
    assert.deepEqual(result, {
      code: 2,
      stdout: '',
      stderr: `psd2-gateway ${name}: ${message} (psd2-gateway ${name} --help)\n`,
    });
  }
});
