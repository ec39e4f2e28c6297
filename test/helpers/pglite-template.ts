// One migrated PGlite data directory for every test process of a run: a fresh in-memory PGlite takes
// 2.5-4 s to create and migrate (initdb in WebAssembly, then every migration), a copy of a migrated
// directory opens in about 0.4 s, and a test run opens some two hundred. The directory is named after
// the migrations' contents and PGlite's version, so a changed migration makes a new one; it is built
// under a name of its own and renamed into place, so a process never sees half of it. Tests open it
// through openStore's snapshot option, which copies it and runs any migration it lacks, as a start
// from the sandbox snapshot does.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openStore } from '../../src/store/database/open.ts';
import { definitions } from '../../src/store/migrate.ts';

const MIGRATIONS = fileURLToPath(new URL('../../src/store/migrations/', import.meta.url));
const PGLITE_PACKAGE = fileURLToPath(
  new URL('../../node_modules/@electric-sql/pglite/package.json', import.meta.url),
);
const PREFIX = 'psd2-gateway-test-template-';
/** Templates of other migrations are removed once they are a day old (another checkout may use one). */
const STALE_MS = 24 * 60 * 60 * 1000;

async function templateName(): Promise<string> {
  const hash = createHash('sha256');
  // PGlite's files are its version's: its package.json (not among the package's exports) goes in too.
  hash.update(readFileSync(PGLITE_PACKAGE));
  for (const name of readdirSync(MIGRATIONS)
    .filter((file) => file.endsWith('.sql'))
    .sort()) {
    hash.update(name).update(readFileSync(join(MIGRATIONS, name)));
  }
  // The definitions too (the generated transition rule among them), applied at the end of migrating.
  for (const definition of await definitions()) hash.update(definition.name).update(definition.sql);
  return `${PREFIX}${hash.digest('hex').slice(0, 16)}`;
}

let made: Promise<string> | undefined;

/** The migrated template's directory, made by the first process of a run that needs it. */
export function migratedTemplate(): Promise<string> {
  made ??= makeTemplate();
  return made;
}

async function makeTemplate(): Promise<string> {
  const name = await templateName();
  const dir = join(tmpdir(), name);
  if (existsSync(dir)) return dir;
  const building = `${dir}.${process.pid}.${Date.now()}`;
  const store = await openStore({ dataDir: building });
  await store.close();
  try {
    renameSync(building, dir);
  } catch (error) {
    // Another process put its template in place first: the same migrations, so either serves.
    rmSync(building, { recursive: true, force: true });
    if (!existsSync(dir)) throw error;
  }
  removeStale(name);
  return dir;
}

function removeStale(current: string): void {
  for (const entry of readdirSync(tmpdir())) {
    if (!entry.startsWith(PREFIX) || entry === current) continue;
    const path = join(tmpdir(), entry);
    try {
      if (Date.now() - statSync(path).mtimeMs > STALE_MS) rmSync(path, { recursive: true, force: true });
    } catch {
      // Removed meanwhile by another process.
    }
  }
}
