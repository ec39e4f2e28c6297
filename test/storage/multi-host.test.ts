// DATABASE_URL with several hosts (libpq's form), on servers of the test's own: a primary and a
// synchronous standby, the standby listed FIRST so that a gateway taking the first host would send its
// writes there. The gateway migrates and serves on the primary; the primary is killed (kill -9): the
// API answers 503 SERVICE_UNAVAILABLE with Retry-After, the token endpoint temporarily_unavailable,
// /readyz 503, never a 500 nor a wait past the statement bound; the standby is promoted: the gateway
// finds it by itself, without a restart, and what it acknowledged before the kill is there. Then a
// primary whose machine goes silent (a proxy drops every byte, nothing is closed): the gateway gives it
// up within its bounds and finds the promoted standby. Times from the promotion are printed.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { configWith } from '../../src/config.ts';
import { openConfiguredStore } from '../../src/main.ts';
import { openStore } from '../../src/store/database/open.ts';
import { assertApiAway, assertOAuthAway, readiness, statusOf } from '../helpers/database-away.ts';
import { type DatabaseProxy, startDatabaseProxy } from '../helpers/db-proxy.ts';
import { startGateway } from '../helpers/gateway.ts';
import { domestic } from '../helpers/payments.ts';
import {
  clusterUnavailable,
  type PgCluster,
  type PgServer,
  queryOn,
  startCluster,
} from '../helpers/pg-cluster.ts';
import { spawnServe } from '../helpers/serve-process.ts';

const PATH = '/psd2/se/v2/payments/private/single/handelsbanken-domestic-credit-transfer';
/** Short bounds, so that the test's waits stay short; the gateway's defaults are 5 s and 10 s. */
const TIMEOUTS = { connectMs: 1_000, statementMs: 2_000 };

const why = clusterUnavailable();
if (why !== undefined) console.log(`# multi-host DATABASE_URL suite skipped: ${why}`);

/** Rows of one query on the test's database `bank` of one server. */
const bankRows = <T>(server: PgServer, text: string, values: unknown[] = []) =>
  queryOn<T>(server.url.replace(/\/postgres$/, '/bank'), text, values);

/** A gateway in this process on DATABASE_URL `url`, the test's bounds, its store's log lines kept. */
async function serve(url: string) {
  const logged: string[] = [];
  const line = (_fields: object, message: string) => logged.push(message);
  const store = await openStore({
    databaseUrl: url,
    poolSize: 4,
    timeouts: TIMEOUTS,
    logger: { info: line, warn: line },
  });
  const gateway = await startGateway({ store: { ...store, schemaName: undefined } });
  const { client, url: base } = gateway;
  const token = await client.clientCredentialsToken();
  return {
    logged,
    base,
    initiate: async () => {
      const started = performance.now();
      const answer = await client.initiate(token, { path: PATH, body: domestic() });
      return { answer, ms: performance.now() - started };
    },
    token: (scope: string) => client.clientCredentials(scope),
    close: async () => {
      await gateway.close();
      await store.close();
    },
  };
}
type Served = Awaited<ReturnType<typeof serve>>;

/**
 * Initiations until one is served (at most 15 s after `from`): how long that took, the payment, every
 * status answered meanwhile (only 503s are expected) and how long each call took.
 */
async function untilServed(served: Served, from: number) {
  const statuses = new Set<number>();
  const took: number[] = [];
  while (performance.now() - from < 15_000) {
    const { answer, ms } = await served.initiate();
    statuses.add(answer.status);
    took.push(ms);
    if (answer.status === 200)
      return { ms: performance.now() - from, paymentId: answer.body.paymentId, statuses, took };
    await sleep(50);
  }
  return { ms: undefined, paymentId: undefined, statuses, took };
}

describe('several hosts in DATABASE_URL: the gateway writes to the primary and follows a failover', {
  skip: why !== undefined,
}, () => {
  let cluster: PgCluster;
  let served: Served;
  const acknowledged: string[] = [];

  before(async () => {
    cluster = await startCluster({ standbys: 1, synchronous: true });
    const [standby] = cluster.standbys;
    served = await serve(
      `postgres://postgres@${standby!.hostPort},${cluster.primary.hostPort}/${cluster.database}?target_session_attrs=read-write`,
    );
  });
  after(async () => {
    await served?.close();
    await cluster?.stop();
  });

  const get = (path: string) => statusOf(served.base, path);

  test('migrates and serves on the primary, though a standby is listed first', async () => {
    for (let index = 0; index < 5; index++) {
      const { answer } = await served.initiate();
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
      acknowledged.push(answer.body.paymentId);
    }
    assert.equal(await readiness(served.base, 200), 200);
    const [standby] = cluster.standbys;
    const sessions = (server: PgServer) =>
      server.query<{ count: string }>(
        "SELECT count(*) FROM pg_stat_activity WHERE datname = 'bank' AND backend_type = 'client backend' AND pid <> pg_backend_pid()",
      );
    // The pools' connections: all on the primary, none left on the standby (the discovery's probes close).
    assert.notEqual((await sessions(cluster.primary))[0]!.count, '0');
    assert.equal((await sessions(standby!))[0]!.count, '0');
    assert.deepEqual(served.logged, [
      `database: ${cluster.primary.hostPort} is read-write; connections go there`,
    ]);
  });

  test('as an operator runs it: `serve` takes the URL, logs the host it writes to, never the password', async () => {
    const [standby] = cluster.standbys;
    const serving = spawnServe({
      DATABASE_URL: `postgres://postgres:secret@${standby!.hostPort},${cluster.primary.hostPort}/${cluster.database}`,
      LOG_FORMAT: 'json',
    });
    try {
      await serving.ready();
      const found = serving.lines().filter((line) => String(line.msg).startsWith('database: '));
      assert.deepEqual(
        found.map((line) => [line.msg, line.databaseHost]),
        [
          [
            `database: ${cluster.primary.hostPort} is read-write; connections go there`,
            cluster.primary.hostPort,
          ],
        ],
      );
      assert.ok(!`${serving.stdout()}${serving.stderr()}`.includes('secret'), 'the password was logged');
    } finally {
      await serving.kill();
    }
  });

  test('a URL naming the standby alone, read-write: the start refused, saying what the host is', async () => {
    const [standby] = cluster.standbys;
    const config = configWith({
      databaseUrl: `postgres://postgres:secret@${standby!.hostPort}/bank?target_session_attrs=read-write`,
      databaseTimeouts: TIMEOUTS,
    });
    await assert.rejects(openConfiguredStore(config), {
      name: 'StartError',
      message: `DATABASE_URL: no database host is read-write: ${standby!.hostPort} is a standby; start or promote a primary, or correct the hosts`,
    });
  });

  test('the primary killed: 503 with Retry-After in each route shape, /readyz 503, within the bounds', async () => {
    await cluster.primary.kill();
    for (let attempt = 0; attempt < 5; attempt++) {
      const { answer, ms } = await served.initiate();
      assertApiAway(answer);
      assert.ok(ms < TIMEOUTS.statementMs, `answered in ${Math.round(ms)} ms, past the statement bound`);
    }
    assertOAuthAway(await served.token('AIS'));
    assert.deepEqual([await readiness(served.base, 503), await get('/livez')], [503, 200]);
  });

  test('the standby promoted: served again without a restart, nothing acknowledged lost', async () => {
    const [standby] = cluster.standbys;
    // From pg_ctl promote, and from the moment the standby took writes (promote() waits for it).
    const asked = performance.now();
    await standby!.promote();
    const promoted = performance.now();
    const { ms: first, paymentId, statuses } = await untilServed(served, promoted);
    if (paymentId !== undefined) acknowledged.push(paymentId);
    console.log(
      first === undefined
        ? '# promotion to the first 200 on the new primary: none within 15 s'
        : `# promotion to the first 200 on the new primary: ${Math.round(first)} ms (${Math.round(first + promoted - asked)} ms from pg_ctl promote)`,
    );
    assert.ok(first !== undefined, 'no request was served within 15 s of the promotion');
    assert.deepEqual(
      [...statuses].filter((status) => status !== 503 && status !== 200),
      [],
    );
    assert.equal((await served.token('AIS')).status, 200);
    assert.deepEqual([await readiness(served.base, 200), await get('/livez')], [200, 200]);
    const rows = await bankRows<{ payment_id: string }>(
      standby!,
      'SELECT payment_id FROM payments WHERE payment_id = ANY($1) ORDER BY payment_id',
      [acknowledged],
    );
    assert.deepEqual(
      rows.map((row) => row.payment_id),
      [...acknowledged].sort(),
    );
    assert.deepEqual(served.logged.slice(1, 2), [
      `database: lost ${cluster.primary.hostPort}; looking for the read-write host`,
    ]);
    assert.equal(
      served.logged.at(-1),
      `database: ${standby!.hostPort} is read-write now (was ${cluster.primary.hostPort}); new connections go there`,
    );
    assert.ok(!served.logged.some((line) => line.includes('postgres://')), 'a log line shows the URL');
  });
});

describe('a primary whose machine goes silent: given up within the bounds, the promoted standby found', {
  skip: why !== undefined,
}, () => {
  let cluster: PgCluster;
  let proxy: DatabaseProxy;
  let served: Served;

  before(async () => {
    cluster = await startCluster({ standbys: 1, synchronous: false });
    proxy = await startDatabaseProxy(new URL(cluster.primary.url));
    const [standby] = cluster.standbys;
    served = await serve(
      `postgres://postgres@${standby!.hostPort},${new URL(proxy.url).host}/${cluster.database}?target_session_attrs=read-write`,
    );
  });
  after(async () => {
    await served?.close();
    proxy?.set('pass');
    await proxy?.close();
    await cluster?.stop();
  });

  test('silence, then at once a promotion: 503s meanwhile, served again within the statement bound', async () => {
    // Concurrent calls, so that the pools hold several connections to the primary when it goes silent.
    const before = await Promise.all(Array.from({ length: 8 }, () => served.initiate()));
    assert.deepEqual(
      before.map(({ answer }) => answer.status),
      Array(8).fill(200),
    );
    // The machine goes: every byte dropped, nothing closed; the standby is promoted at once (sooner
    // than a failover mechanism would), the worst case for the gateway's bounds.
    proxy.set('blackhole');
    const [standby] = cluster.standbys;
    await standby!.promote();
    const promoted = performance.now();
    const { ms, statuses, took } = await untilServed(served, promoted);
    console.log(
      `# silent primary, promotion to the first 200: ${ms === undefined ? 'none within 15 s' : `${Math.round(ms)} ms`} (bounds: connect ${TIMEOUTS.connectMs} ms, statement ${TIMEOUTS.statementMs} ms)`,
    );
    assert.ok(ms !== undefined, 'no request was served within 15 s of the promotion');
    assert.deepEqual(
      [...statuses].filter((status) => status !== 503 && status !== 200),
      [],
    );
    assert.equal(
      served.logged.at(-1),
      `database: ${standby!.hostPort} is read-write now (was ${new URL(proxy.url).host}); new connections go there`,
    );
    // One call waited out pg's read timeout and found the silence; the other connections to the
    // silent host were cut then, so no other call waited on one.
    assert.equal(
      took.filter((wait) => wait >= TIMEOUTS.statementMs).length,
      1,
      `calls took ${took.map(Math.round)} ms`,
    );
    for (let index = 0; index < 8; index++) {
      const { answer, ms: took } = await served.initiate();
      assert.equal(answer.status, 200);
      assert.ok(took < TIMEOUTS.connectMs, `answered in ${Math.round(took)} ms`);
    }
  });
});
