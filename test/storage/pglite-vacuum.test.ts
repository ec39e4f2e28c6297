// PGlite's vacuum (store/database/pglite-vacuum.ts): a turn takes the tables past autovacuum's
// thresholds (the defaults, or a table's own storage parameters) and no other, and the timer's turns run
// without being asked. PGlite only: PostgreSQL has its own autovacuum.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sql } from 'drizzle-orm';
import { startVacuum, vacuumTurn } from '../../src/store/database/pglite-vacuum.ts';
import { type Db, rowsOf } from '../../src/store/database.ts';
import { openTestStore } from '../helpers/gateway.ts';

/** What PostgreSQL's statistics say of a table. */
async function stats(db: Db, table: string) {
  await db.execute(sql`SELECT pg_stat_force_next_flush()`);
  return rowsOf<{ dead: number; tuples: number; vacuumed: boolean; analyzed: boolean }>(
    await db.execute(sql`SELECT s.n_dead_tup::int AS dead, c.reltuples::int AS tuples,
      s.last_vacuum IS NOT NULL AS vacuumed, s.last_analyze IS NOT NULL AS analyzed
    FROM pg_stat_user_tables s JOIN pg_class c ON c.oid = s.relid WHERE s.relname = ${table}`),
  )[0];
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
    // 400 dead rows: past 250; 400 changes, past 150: vacuumed and analysed.
    await db.execute(sql`UPDATE scratch_busy SET v = 2 WHERE id > 100 AND id <= 400`);
    assert.deepEqual(await stats(db, 'scratch_busy'), {
      dead: 400,
      tuples: 1000,
      vacuumed: false,
      analyzed: true,
    });
    assert.deepEqual(scratchOf(await vacuumTurn(db)), {
      vacuumed: ['scratch_busy'],
      analyzed: ['scratch_busy'],
    });
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

/** How often PostgreSQL's statistics say a table was vacuumed and analysed, by anyone. */
async function counts(db: Db, table: string) {
  await db.execute(sql`SELECT pg_stat_force_next_flush()`);
  return rowsOf<{ vacuums: number; analyses: number }>(
    await db.execute(sql`SELECT vacuum_count::int AS vacuums, analyze_count::int AS analyses
    FROM pg_stat_user_tables WHERE relname = ${table}`),
  )[0];
}

test("a vacuum turn on PGlite honours a table's own autovacuum parameters, the audit trail's among them", async () => {
  const store = await openTestStore('pglite');
  const { db } = store;
  try {
    // Three tables alike but for their parameters, and the audit trail, which migration 0044 analyses at
    // each doubling. Each gets 1,000 rows, then 600, then 1,100.
    await db.execute(sql`CREATE TABLE scratch_plain (id int PRIMARY KEY, v int)`);
    await db.execute(
      sql`CREATE TABLE scratch_off (id int PRIMARY KEY, v int) WITH (autovacuum_enabled = off)`,
    );
    await db.execute(sql`CREATE TABLE scratch_tuned (id int PRIMARY KEY, v int)
      WITH (autovacuum_analyze_scale_factor = 1.0, autovacuum_vacuum_insert_threshold = 100,
            autovacuum_vacuum_insert_scale_factor = 0)`);
    let next = 0;
    const add = async (count: number) => {
      for (const table of ['scratch_plain', 'scratch_off', 'scratch_tuned'])
        await db.execute(sql`INSERT INTO ${sql.identifier(table)}
          SELECT g, 0 FROM generate_series(${next + 1}::int, ${next + count}::int) g`);
      await db.execute(sql`INSERT INTO audit_events (event, outcome, resource)
        SELECT 'payment.initiated', 'ACTC', 'p' || g FROM generate_series(1, ${count}::int) g`);
      next += count;
    };
    const turn = async () => {
      const { vacuumed, analyzed } = await vacuumTurn(db);
      const own = (names: string[]) =>
        names.filter((name) => name.startsWith('scratch_') || name === 'audit_events');
      return { vacuumed: own(vacuumed), analyzed: own(analyzed) };
    };
    // Never analysed (no rows known): all but the table turned off are analysed. Only the tuned table's
    // inserts pass its insert vacuum's threshold (100; the default's is 1,000 + 20%).
    await add(1000);
    assert.deepEqual(await turn(), {
      vacuumed: ['scratch_tuned'],
      analyzed: ['audit_events', 'scratch_plain', 'scratch_tuned'],
    });
    // 600 more of 1,000: 1,600 inserted since the last vacuum pass 1,000 + 200, and 600 changes pass the
    // default's 50 + 100 but not 50 + 1,000. The trail and the tuned table are vacuumed, not analysed.
    await add(600);
    assert.deepEqual(await turn(), {
      vacuumed: ['audit_events', 'scratch_plain', 'scratch_tuned'],
      analyzed: ['scratch_plain'],
    });
    // 1,100 more of 1,600: 1,700 changes since their analysis pass 50 + 1,600 where the tables analyse
    // at a doubling; 1,100 inserts do not pass the default's 1,000 + 320.
    await add(1100);
    assert.deepEqual(await turn(), {
      vacuumed: ['scratch_tuned'],
      analyzed: ['audit_events', 'scratch_plain', 'scratch_tuned'],
    });
    assert.deepEqual(await counts(db, 'scratch_off'), { vacuums: 0, analyses: 0 });
    assert.deepEqual(await counts(db, 'scratch_plain'), { vacuums: 1, analyses: 3 });
    assert.deepEqual(await counts(db, 'scratch_tuned'), { vacuums: 3, analyses: 2 });
    assert.deepEqual(await counts(db, 'audit_events'), { vacuums: 1, analyses: 2 });
  } finally {
    await store.close();
  }
});
