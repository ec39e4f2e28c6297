// The sandbox's start snapshot: a PGlite data directory migrated and seeded with the test data, made
// by `npm run build` (psd2-gateway snapshot) next to the compiled code. An in-memory sandbox starts as
// a copy of it instead of creating, migrating and seeding a database (seconds) at every start. The
// test data's history then runs up to the day of the build; POST /sandbox/reset renews it to today.
import { rm } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { DEFAULT_TIME_ZONE } from '../config.ts';
import { dateIn } from '../domain/dates.ts';
import { openStore } from '../store/database/open.ts';
import { seedTestCustomers } from './seed.ts';

/** dist/sandbox-snapshot beside the bundled code (absent when running the TypeScript sources). */
export const SNAPSHOT_DIR = fileURLToPath(new URL('./sandbox-snapshot/', import.meta.url));

/**
 * PostgreSQL's template databases, which PGlite never opens (it serves the database `postgres`) and no
 * sandbox creates a database from: without them the snapshot has 513 files instead of 1,113 (27 MB
 * instead of 41), which every in-memory sandbox copies at its start. Each statement alone: DROP
 * DATABASE refuses to run inside a transaction block.
 */
const DROP_TEMPLATES = [
  'ALTER DATABASE template0 IS_TEMPLATE false',
  'DROP DATABASE template0',
  'ALTER DATABASE template1 IS_TEMPLATE false',
  'DROP DATABASE template1',
];

/** Writes the snapshot anew: a fresh database, migrated and seeded for today. Answers what it did. */
export async function writeSandboxSnapshot(
  dir = SNAPSHOT_DIR,
  timeZone = DEFAULT_TIME_ZONE,
): Promise<string> {
  await rm(dir, { recursive: true, force: true });
  const started = performance.now();
  const store = await openStore({ dataDir: dir });
  try {
    await seedTestCustomers(store.db, dateIn(new Date(), timeZone));
    await store.withExclusiveLock(async (run) => {
      for (const statement of DROP_TEMPLATES) await run(statement);
    });
  } finally {
    await store.close();
  }
  return `sandbox snapshot written to ${dir} in ${Math.round(performance.now() - started)} ms`;
}
