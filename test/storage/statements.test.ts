// runStatement, the hot paths' named statements, on both databases (PGlite prepares them itself:
// store/database/pglite.ts): the same JavaScript types as Drizzle gives, a statement that fails leaves
// the connection and the statement usable, and a name stands for one text.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runStatement } from '../../src/store/database.ts';
import { backends, openTestStore } from '../helpers/gateway.ts';

const TEXT = `SELECT $1::text AS t, $2::float8 AS f, $3::boolean AS b, $4::timestamptz AS at, $5::jsonb AS j,
                     $6::text[] AS list, NULL::text AS n, 10 / $7::int AS q`;
const AT = new Date('2026-11-29T01:02:03.456Z');
const values = (divisor: number) => ['a', 1.5, true, AT, JSON.stringify({ k: [1] }), ['x', 'y'], divisor];
const row = (q: number) => ({ t: 'a', f: 1.5, b: true, at: AT, j: { k: [1] }, list: ['x', 'y'], n: null, q });

for (const backend of backends()) {
  test(`runStatement on ${backend}: types, a failed call, one text per name`, async () => {
    const store = await openTestStore(backend);
    try {
      assert.deepEqual(await runStatement(store.db, 'test_types', TEXT, values(2)), [row(5)]);
      await assert.rejects(runStatement(store.db, 'test_types', TEXT, values(0)), { code: '22012' });
      // The statement is still prepared, the session out of its failed state.
      assert.deepEqual(await runStatement(store.db, 'test_types', TEXT, values(5)), [row(2)]);
      await assert.rejects(runStatement(store.db, 'test_types', 'SELECT 1 AS one', []));
      assert.deepEqual(await runStatement(store.db, 'test_types', TEXT, values(10)), [row(1)]);
      // A statement that fails to parse is not kept: the name is free for a good text.
      await assert.rejects(runStatement(store.db, 'test_bad', 'SELEC 1', []), { code: '42601' });
      assert.deepEqual(await runStatement(store.db, 'test_bad', 'SELECT 1::int AS one', []), [{ one: 1 }]);
      // Writes, with no row described: nothing comes back, and the row is there.
      await runStatement(store.db, 'test_write', 'CREATE TABLE scratch_statements (v int)', []);
      assert.deepEqual(
        await runStatement(store.db, 'test_insert', 'INSERT INTO scratch_statements VALUES ($1)', [7]),
        [],
      );
      assert.deepEqual(await runStatement(store.db, 'test_read', 'SELECT v FROM scratch_statements', []), [
        { v: 7 },
      ]);
    } finally {
      await store.close();
    }
  });
}
