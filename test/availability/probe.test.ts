// The probe on its own, against a stand-in gateway the test steers (answers 401, then 503, then none
// within the timeout, then 401 again), writing to PostgreSQL through a proxy that the test cuts for a
// while: every round is recorded as it was answered, those of the outage written once the database is
// back. PostgreSQL only (PGlite is inside the probe's process: it cannot be away).
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { startDatabaseProxy } from '../helpers/db-proxy.ts';
import { createFreshDatabase } from '../helpers/fresh-database.ts';
import { TEST_DATABASE_URL } from '../helpers/gateway.ts';
import { spawnServe } from '../helpers/serve-process.ts';

test('the probe records 5xx and silence as unanswered, and keeps its outcomes while the database is away', {
  skip: TEST_DATABASE_URL === undefined ? 'TEST_DATABASE_URL is not set' : false,
}, async () => {
  let answer: 'ok' | 'unavailable' | 'silent' = 'ok';
  const server = createServer((request, response) => {
    request.resume();
    if (answer === 'silent') return; // never answered: the probe's timeout decides
    response.writeHead(answer === 'ok' ? 401 : 503, { 'content-type': 'application/json' });
    response.end('{}');
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const database = await createFreshDatabase(TEST_DATABASE_URL!);
  const proxy = await startDatabaseProxy(new URL(database.url));
  const { port } = server.address() as AddressInfo;
  const probe = spawnServe({ DATABASE_URL: proxy.url, DB_CONNECT_TIMEOUT_MS: '500' }, [
    'probe',
    '--base-url',
    `http://127.0.0.1:${port}`,
    '--interval-ms',
    '100',
    '--timeout-ms',
    '300',
    '--flush-ms',
    '200',
  ]);
  try {
    const until = Date.now() + 30_000;
    while (!probe.stdout().includes('\n') && probe.child.exitCode === null && Date.now() < until)
      await sleep(25);
    await sleep(600);
    proxy.set('refuse');
    await sleep(300);
    answer = 'unavailable';
    await sleep(700);
    answer = 'silent';
    await sleep(700);
    answer = 'ok';
    await sleep(500);
    proxy.set('pass');
    await sleep(1000);
    probe.child.kill('SIGTERM');
    assert.equal(await probe.exited(), 0, probe.stderr());
    // The driver's reason in a few words, never the statement with its parameters.
    assert.match(probe.stderr(), /database away \([^\n]{1,120}\): outcomes kept in memory\n/);
    assert.doesNotMatch(probe.stderr(), /insert into|params/i);
    assert.match(probe.stderr(), /database back: \d+ outcomes written\n/);
    const rows = await database.query<{ interface: string; status_code: number | null; answered: boolean }>(
      'SELECT interface, status_code, answered FROM probe_outcomes ORDER BY sent_at',
    );
    for (const name of [
      'payment-initiation',
      'account-information',
      'confirmation-of-funds',
      'authorization',
    ]) {
      const runs: string[] = [];
      for (const row of rows.filter((r) => r.interface === name)) {
        const seen = `${row.status_code ?? 'none'} ${row.answered ? 'answered' : 'unanswered'}`;
        if (runs.at(-1) !== seen) runs.push(seen);
      }
      assert.deepEqual(runs, ['401 answered', '503 unanswered', 'none unanswered', '401 answered'], name);
    }
  } finally {
    await probe.kill();
    await proxy.close();
    server.closeAllConnections();
    server.close();
    await database.drop();
  }
});
