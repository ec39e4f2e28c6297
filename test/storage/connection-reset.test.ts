// PostgreSQL's connections reset (an RST, as when a proxy in front of the database or the network drops
// them) while the pool has them lent out: inside a transaction between its statements, under the
// migrations' lock, and idle in the pool. The statement after the reset fails as a database that cannot
// answer (a 503 to the API), the process goes on (an 'error' event nobody listens to would end it), and
// the store serves again on new connections. PostgreSQL only (skipped, saying so, without it).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'drizzle-orm';
import { openPostgres } from '../../src/store/database/postgres.ts';
import { isDatabaseUnavailable } from '../../src/store/database/unavailable.ts';
import type { Store } from '../../src/store/database.ts';
import { type DatabaseProxy, startDatabaseProxy } from '../helpers/db-proxy.ts';
import { TEST_DATABASE_URL } from '../helpers/gateway.ts';

const DATABASE_URL = TEST_DATABASE_URL;
if (DATABASE_URL === undefined) console.log('# connection reset suite skipped: TEST_DATABASE_URL is not set');

/** Long enough for the RST to reach the client's socket on this machine. */
const RST_ARRIVES_MS = 200;

describe('connections reset while the pool has them lent', { skip: DATABASE_URL === undefined }, () => {
  let proxy: DatabaseProxy;
  let store: Store;

  before(async () => {
    proxy = await startDatabaseProxy(new URL(DATABASE_URL!));
    store = await openPostgres({
      databaseUrl: proxy.url,
      poolSize: 2,
      timeouts: { connectMs: 1_000, statementMs: 2_000 },
    });
  });
  after(async () => {
    await store?.close();
    await proxy?.close();
  });

  async function one(): Promise<number> {
    const rows = (await store.db.execute(sql`SELECT 1 AS one`)) as unknown as { rows: { one: number }[] };
    return rows.rows[0]!.one;
  }

  /** The error `fn` rejects with: one that says the database cannot answer now. */
  async function assertUnavailable(fn: () => Promise<unknown>): Promise<void> {
    await assert.rejects(fn, (error: unknown) => {
      assert.ok(isDatabaseUnavailable(error), `not a database that cannot answer: ${String(error)}`);
      return true;
    });
  }

  test('inside a transaction, between its statements: the transaction fails, the store serves again', async () => {
    await assertUnavailable(() =>
      store.db.transaction(async (trx) => {
        await trx.execute(sql`SELECT 1`);
        proxy.resetAll();
        await sleep(RST_ARRIVES_MS);
        await trx.execute(sql`SELECT 2`);
      }),
    );
    assert.equal(await one(), 1);
  });

  test('under the migrations lock: the locked work fails, the store serves again', async () => {
    await assertUnavailable(() =>
      store.withExclusiveLock(async (run) => {
        proxy.resetAll();
        await sleep(RST_ARRIVES_MS);
        return run('SELECT 1');
      }),
    );
    assert.equal(await one(), 1);
  });

  test('idle in the pool: the next statement gets a new connection', async () => {
    assert.equal(await one(), 1);
    proxy.resetAll();
    await sleep(RST_ARRIVES_MS);
    assert.equal(await one(), 1);
  });

  test('while the proxy resets every connection: statements fail as unavailable, then the store serves', async () => {
    proxy.set('reset');
    try {
      await assertUnavailable(one);
    } finally {
      proxy.set('pass');
    }
    assert.equal(await one(), 1);
  });
});
