// A transaction that the database fails under gives its connection back: the pool stays whole, the
// next transaction runs, and the store closes. Drizzle 0.45 on its own keeps a client whose BEGIN failed
// checked out for good (store/database/pooled-transaction.ts); with a pool of one the next transaction
// then waited forever, and so did closing the store. Through a TCP proxy that drops every byte, as a
// silent database does. PostgreSQL only (skipped, saying so, without it).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { openPostgres } from '../../src/store/database/postgres.ts';
import { isDatabaseUnavailable } from '../../src/store/database/unavailable.ts';
import type { Store } from '../../src/store/database.ts';
import { type DatabaseProxy, startDatabaseProxy } from '../helpers/db-proxy.ts';
import { TEST_DATABASE_URL } from '../helpers/gateway.ts';

if (TEST_DATABASE_URL === undefined)
  console.log('# pooled transaction suite skipped: TEST_DATABASE_URL is not set');

describe('a transaction the database fails under', { skip: TEST_DATABASE_URL === undefined }, () => {
  let proxy: DatabaseProxy;
  let store: Store;

  before(async () => {
    proxy = await startDatabaseProxy(new URL(TEST_DATABASE_URL!));
    store = await openPostgres({
      databaseUrl: proxy.url,
      poolSize: 1,
      timeouts: { connectMs: 500, statementMs: 500 },
    });
  });
  after(async () => {
    proxy.set('pass');
    await store?.close();
    await proxy?.close();
  });

  /** What `work` rejects with, once it has settled. */
  const failureOf = (work: Promise<unknown>) =>
    work.then(
      () => assert.fail('the transaction was expected to fail'),
      (error: unknown) => error,
    );
  const committed = () =>
    store.db.transaction(async (trx) => {
      const { rows } = (await trx.execute(sql`SELECT 1 AS one`)) as unknown as { rows: { one: number }[] };
      return rows[0];
    });

  test('its BEGIN unanswered: the error says unavailable, and the one connection serves the next', async () => {
    assert.deepEqual(await committed(), { one: 1 });
    // The pooled connection is open and idle: its BEGIN goes out and nothing comes back.
    proxy.set('blackhole');
    const failed = await failureOf(committed());
    assert.equal(isDatabaseUnavailable(failed), true, String(failed));
    proxy.set('pass');
    assert.deepEqual(await committed(), { one: 1 });
  });

  test('a statement unanswered inside it: rolled back, and the next gets a healthy connection', async () => {
    const failed = await failureOf(
      store.db.transaction(async (trx) => {
        await trx.execute(sql`SELECT 1`);
        proxy.set('blackhole');
        await trx.execute(sql`SELECT 2`);
      }),
    );
    assert.equal(isDatabaseUnavailable(failed), true, String(failed));
    proxy.set('pass');
    assert.deepEqual(await committed(), { one: 1 });
  });

  test('an error of the statement itself: the connection is kept and serves the next', async () => {
    await assert.rejects(
      store.db.transaction((trx) => trx.execute(sql`SELECT 1 / 0`)),
      (error: Error) => !isDatabaseUnavailable(error),
    );
    assert.deepEqual(await committed(), { one: 1 });
  });
});
