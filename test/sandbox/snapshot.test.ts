// The sandbox's start snapshot (src/sandbox/snapshot.ts): a store opened as a copy of it skips the
// migrations pass, so the copy must already hold every migration and definition of this code; and the
// snapshot itself is left as it was.
import assert from 'node:assert/strict';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { writeSandboxSnapshot } from '../../src/sandbox/snapshot.ts';
import { openStore } from '../../src/store/database/open.ts';
import { runMigrations } from '../../src/store/migrate.ts';

let dir: string;
let snapshot: string;

before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'psd2-snapshot-test-'));
  snapshot = join(dir, 'snapshot');
  await writeSandboxSnapshot(snapshot);
});

after(async () => {
  await rm(dir, { recursive: true, force: true });
});

test('a copy of the snapshot opens without a migrations pass, and is up to date', async () => {
  const filesBefore = (await readdir(snapshot, { recursive: true })).sort();
  const store = await openStore({ snapshot });
  try {
    assert.equal(store.fromSnapshot, true);
    assert.deepEqual(store.migrated, []);
    // What a migrations pass would have done: nothing, no migration and no definition.
    assert.deepEqual(await runMigrations(store), []);
    const [row] = (await store.withExclusiveLock((run) =>
      run('SELECT count(*)::int AS customers FROM psus'),
    )) as { customers: number }[];
    assert.ok(row!.customers > 0, 'the seeded test customers are in the copy');
  } finally {
    await store.close();
  }
  assert.deepEqual((await readdir(snapshot, { recursive: true })).sort(), filesBefore);
});

test('the snapshot holds only the database PGlite serves: no template for a copy to carry', async () => {
  const store = await openStore({ snapshot });
  try {
    const rows = await store.withExclusiveLock((run) =>
      run('SELECT datname FROM pg_database ORDER BY datname'),
    );
    assert.deepEqual(rows, [{ datname: 'postgres' }]);
  } finally {
    await store.close();
  }
  // One folder of relations under base/: the database's own.
  assert.equal((await readdir(join(snapshot, 'base'))).length, 1);
});

test('a DATA_DIR made from the snapshot is migrated as usual at its next start', async () => {
  const dataDir = join(dir, 'data');
  const first = await openStore({ snapshot, dataDir });
  assert.equal(first.fromSnapshot, true);
  assert.deepEqual(first.migrated, []);
  await first.close();
  const second = await openStore({ snapshot, dataDir });
  try {
    assert.equal(second.fromSnapshot, false);
    assert.deepEqual(second.migrated, []);
  } finally {
    await second.close();
  }
});
