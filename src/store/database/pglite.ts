// The embedded database (PGlite): in memory, on disk (DATA_DIR), or a copy of a prepared snapshot.
import { cpSync, existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Store, type StoreDb, type StoreOptions, serveStatements } from '../database.ts';
import * as schema from '../schema.ts';

/**
 * The embedded database's settings (written to its postgresql.conf at every start): PostgreSQL's
 * defaults are for a server with memory of its own; in one process beside the gateway these serve
 * the sandbox's data (tens of megabytes) and keep the process small (measured: 40 MB less resident;
 * 2 MB of shared buffers instead of 8 another 6 MB, with no loss of initiation throughput: its files
 * are in RAM; room for 5 connections instead of 100 in the shared memory's tables, 3 MB: PGlite runs
 * one backend. See docs/decisions.md "Issue 40: the sandbox's start").
 */
const PGLITE_SETTINGS = [
  'shared_buffers = 2MB',
  'max_connections = 5',
  'wal_buffers = 256kB',
  'work_mem = 1MB',
  'maintenance_work_mem = 8MB',
];

/**
 * Where an in-memory database's copy of the snapshot lives: a RAM file system where there is one
 * (/dev/shm on Linux: copying the snapshot's thousand files to a disk takes a second), else the
 * temporary directory.
 */
function memoryDirectory(): string {
  return existsSync('/dev/shm') ? '/dev/shm' : tmpdir();
}

/** Where PGlite keeps its files: DATA_DIR, a copy of the snapshot, or memory (undefined). */
async function pgliteDirectory(
  options: StoreOptions,
): Promise<{ dir: string | undefined; fromSnapshot: boolean; remove?: () => Promise<void> }> {
  const snapshot =
    options.snapshot !== undefined && existsSync(options.snapshot) ? options.snapshot : undefined;
  if (options.dataDir !== undefined) {
    if (snapshot === undefined || existsSync(options.dataDir))
      return { dir: options.dataDir, fromSnapshot: false };
    cpSync(snapshot, options.dataDir, { recursive: true });
    return { dir: options.dataDir, fromSnapshot: true };
  }
  if (snapshot === undefined) return { dir: undefined, fromSnapshot: false };
  const dir = await mkdtemp(join(memoryDirectory(), 'psd2-gateway-'));
  // Synchronous: fs.promises.cp takes ten times as long for the snapshot's thousand small files.
  cpSync(snapshot, dir, { recursive: true });
  return { dir, fromSnapshot: true, remove: () => rm(dir, { recursive: true, force: true }) };
}

export async function openPglite(options: StoreOptions): Promise<Store> {
  const { dir, fromSnapshot, remove } = await pgliteDirectory(options);
  // Each driver is loaded only when used: the sandbox never loads pg, PostgreSQL never PGlite.
  const [{ PGlite }, { drizzle }] = await Promise.all([
    import('@electric-sql/pglite'),
    import('drizzle-orm/pglite'),
  ]);
  const client = await PGlite.create(dir, { postgresqlconf: PGLITE_SETTINGS });
  const db = drizzle(client, { schema }) as unknown as StoreDb;
  serveStatements(
    db,
    async (_name, text, values) => (await client.query(text, [...values])).rows as Record<string, unknown>[],
  );
  return {
    db,
    readDb: db,
    kind: 'pglite',
    fromSnapshot,
    // PGlite serves one connection and runs one transaction at a time.
    withExclusiveLock: (fn) =>
      fn(async (script) => {
        const results = await client.exec(script);
        return (results.at(-1)?.rows ?? []) as Record<string, unknown>[];
      }),
    close: async () => {
      await client.close();
      await remove?.();
    },
  };
}
