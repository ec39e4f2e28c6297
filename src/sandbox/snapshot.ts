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
  } finally {
    await store.close();
  }
  return `sandbox snapshot written to ${dir} in ${Math.round(performance.now() - started)} ms`;
}
