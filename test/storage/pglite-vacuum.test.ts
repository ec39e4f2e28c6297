// PGlite's vacuum (store/database/pglite-vacuum.ts): a turn takes the tables past autovacuum's default
// thresholds and no other, and the timer's turns run without being asked. PGlite only: PostgreSQL has
// its own autovacuum.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sql } from 'drizzle-orm';
import { startVacuum, vacuumTurn } from '../../src/store/database/pglite-vacuum.ts';
import type { Db } from '../../src/store/database.ts';
import { openTestStore } from '../helpers/gateway.ts';

/** What PostgreSQL's statistics say of a table. */
async function stats(db: Db, table: string) {
  await db.execute(sql`SELECT pg_stat_force_next_flush()`);
  const result = (await db.execute(sql`SELECT s.n_dead_tup::int AS dead, c.reltuples::int AS tuples,
      s.last_vacuum IS NOT NULL AS vacuumed, s.last_analyze IS NOT NULL AS analyzed
    FROM pg_stat_user_tables s JOIN pg_class c ON c.oid = s.relid WHERE s.relname = ${table}`)) as unknown as {
    rows: { dead: number; tuples: number; vacuumed: boolean; analyzed: boolean }[];
  };
  return result.rows[0];
}

/** The turn's answer, as far as it names the test's own tables. */
function scratchOf(turn: { vacuumed: string[]; analyzed: string[] }) {
  const own = (names: string[]) => names.filter((name) => name.startsWith('scratch_'));
  return { vacuumed: own(turn.vacuumed), analyzed: own(turn.analyzed) };
}

test('a vacuum turn on PGlite takes the tables past autovacuum thresholds, and no other', async () => {
  const store = await openTestStore('pglite');
  const { db } = store;
  try {
    await db.execute(sql`CREATE TABLE scratch_busy (id int PRIMARY KEY, v int)`);
    await db.execute(sql`CREATE TABLE scratch_quiet (id int PRIMARY KEY, v int)`);
    await db.execute(sql`INSERT INTO scratch_busy SELECT g, 0 FROM generate_series(1, 1000) g`);
    await db.execute(sql`INSERT INTO scratch_quiet SELECT g, 0 FROM generate_series(1, 10) g`);
    // 1,000 rows inserted: past the analysis's 50, not past the insert vacuum's 1,000 + 20%.
    assert.deepEqual(scratchOf(await vacuumTurn(db)), { vacuumed: [], analyzed: ['scratch_busy'] });
    assert.deepEqual(await stats(db, 'scratch_busy'), {
      dead: 0,
      tuples: 1000,
      vacuumed: false,
      analyzed: true,
    });
    // 100 dead rows: not past 50 + 20% of 1,000, nor 100 changes past 50 + 10% of 1,000.
    await db.execute(sql`UPDATE scratch_busy SET v = 1 WHERE id <= 100`);
    assert.deepEqual(scratchOf(await vacuumTurn(db)), { vacuumed: [], analyzed: [] });
    // 400 dead rows: past 250. The vacuum analyses too.
    await db.execute(sql`UPDATE scratch_busy SET v = 2 WHERE id > 100 AND id <= 400`);
    assert.deepEqual(await stats(db, 'scratch_busy'), {
      dead: 400,
      tuples: 1000,
      vacuumed: false,
      analyzed: true,
    });
    assert.deepEqual(scratchOf(await vacuumTurn(db)), { vacuumed: ['scratch_busy'], analyzed: [] });
    assert.deepEqual(await stats(db, 'scratch_busy'), {
      dead: 0,
      tuples: 1000,
      vacuumed: true,
      analyzed: true,
    });
    assert.deepEqual(scratchOf(await vacuumTurn(db)), { vacuumed: [], analyzed: [] });
    // 10 rows inserted, never past a threshold: never analysed, so PostgreSQL still does not know its size.
    assert.deepEqual(await stats(db, 'scratch_quiet'), {
      dead: 0,
      tuples: -1,
      vacuumed: false,
      analyzed: false,
    });
  } finally {
    await store.close();
  }
});

test('the vacuum runs on its own timer, and its stop waits for a turn under way', async () => {
  const store = await openTestStore('pglite');
  const { db } = store;
  const errors: unknown[] = [];
  try {
    await db.execute(sql`CREATE TABLE scratch_timed (id int PRIMARY KEY, v int)`);
    await db.execute(sql`INSERT INTO scratch_timed SELECT g, 0 FROM generate_series(1, 100) g`);
    await db.execute(sql`UPDATE scratch_timed SET v = 1`);
    const stop = startVacuum(db, { intervalMs: 20, onError: (error) => errors.push(error) });
    const deadline = Date.now() + 10_000;
    try {
      while (!(await stats(db, 'scratch_timed'))?.vacuumed && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 20));
    } finally {
      await stop();
    }
    assert.deepEqual(await stats(db, 'scratch_timed'), {
      dead: 0,
      tuples: 100,
      vacuumed: true,
      analyzed: true,
    });
    assert.deepEqual(errors, []);
  } finally {
    await store.close();
  }
});
