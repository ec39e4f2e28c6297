// The embedded database (PGlite): in memory, on disk (DATA_DIR), or a copy of a prepared snapshot.
import { cpSync, existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PGlite } from '@electric-sql/pglite';
import {
  type StatementRunner,
  type Store,
  type StoreDb,
  type StoreOptions,
  serveStatements,
} from '../database.ts';
import * as schema from '../schema.ts';
import { startVacuum } from './pglite-vacuum.ts';

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
export function memoryDirectory(): string {
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

/** A named statement as the embedded database prepared it: its text, its parameters' types, its row's shape. */
interface Prepared {
  text: string;
  parameterTypes: number[];
  rowDescription: BackendMessage | undefined;
}

type BackendMessage = Awaited<ReturnType<PGlite['execProtocolStream']>>[number];
type PgliteModule = typeof import('@electric-sql/pglite');

/**
 * runStatement on PGlite, by name as pg does on PostgreSQL: PGlite's own query() sends every statement
 * as the unnamed one, so the embedded database parses, analyses and plans it again on every call
 * (0.9-1.3 ms of CPU for the hottest ones, the audit trail's CTE a quarter of that). Here each name is
 * parsed and described once (Parse, Describe, Sync), then each call is one Bind, Execute and Sync in a
 * single message to the database. The rest is as PGlite's query(): under its locks, the parameters
 * serialised by their described types, the rows parsed by its parsers, an error thrown as its
 * DatabaseError, and the files synced. See docs/decisions.md "Issue 39: prepared statements on PGlite".
 */
function preparedStatements(client: PGlite, { protocol, parse }: PgliteModule): StatementRunner {
  const prepared = new Map<string, Prepared>();
  // The messages go to the database as one: one call into it, not one per message.
  const send = (...messages: Uint8Array[]) =>
    client.execProtocolStream(Buffer.concat(messages), { syncToFs: false });
  const prepare = async (name: string, text: string): Promise<Prepared> => {
    const known = prepared.get(name);
    if (known !== undefined) {
      if (known.text !== text) throw new Error(`statement ${name} is already prepared with another text`);
      return known;
    }
    const { serialize } = protocol;
    const messages = await send(
      serialize.parse({ name, text }),
      serialize.describe({ type: 'S', name }),
      serialize.sync(),
    );
    const parameters = messages.find((message) => message.name === 'parameterDescription');
    const statement: Prepared = {
      text,
      parameterTypes: (parameters as { dataTypeIDs?: number[] } | undefined)?.dataTypeIDs ?? [],
      rowDescription: messages.find((message) => message.name === 'rowDescription'),
    };
    prepared.set(name, statement);
    return statement;
  };
  return async (name, text, values) => {
    await client._checkReady();
    return client._runExclusiveTransaction(() =>
      client._runExclusiveQuery(async () => {
        const statement = await prepare(name, text);
        const serialized = values.map((value, index) => {
          if (value === null || value === undefined) return null;
          const serializer = client.serializers[statement.parameterTypes[index] ?? 0];
          return serializer === undefined ? String(value) : serializer(value);
        });
        const { serialize } = protocol;
        const messages = await send(
          serialize.bind({ statement: name, values: serialized }),
          serialize.execute({}),
          serialize.sync(),
        );
        await client.syncToFs();
        const described =
          statement.rowDescription === undefined ? messages : [statement.rowDescription, ...messages];
        return (parse.parseResults(described, client.parsers)[0]?.rows ?? []) as Record<string, unknown>[];
      }),
    );
  };
}

export async function openPglite(options: StoreOptions): Promise<Store> {
  const { dir, fromSnapshot, remove } = await pgliteDirectory(options);
  // Each driver is loaded only when used: the sandbox never loads pg, PostgreSQL never PGlite.
  const [pglite, { drizzle }] = await Promise.all([
    import('@electric-sql/pglite'),
    import('drizzle-orm/pglite'),
  ]);
  const client = await pglite.PGlite.create(dir, { postgresqlconf: PGLITE_SETTINGS });
  const db = drizzle(client, { schema }) as unknown as StoreDb;
  serveStatements(db, preparedStatements(client, pglite));
  // PGlite has no autovacuum: its tables are vacuumed and analysed as autovacuum would (pglite-vacuum.ts).
  const stopVacuum =
    options.vacuumIntervalMs === 0
      ? async () => {}
      : startVacuum(db, {
          intervalMs: options.vacuumIntervalMs,
          onError: (error) => options.logger?.warn({ err: error }, 'vacuuming the embedded database failed'),
        });
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
      await stopVacuum();
      await client.close();
      await remove?.();
    },
  };
}
