// Opens the database: PGlite (embedded, in memory or on disk) by default, PostgreSQL when a URL is given.
// Both are driven through Drizzle with the same schema, so the rest of the code sees one Db type.
import { cpSync, existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import type pg from 'pg';
import { runMigrations, type ScriptRunner } from './migrate.ts';
import * as schema from './schema.ts';

export type Schema = typeof schema;
/** A database handle or an open transaction: repositories take either. */
export type Db = PgDatabase<PgQueryResultHKT, Schema>;

declare const storeHandle: unique symbol;
/**
 * The store's own handle (the pool, or PGlite), never a transaction: what a statement that bypasses
 * Drizzle needs (runStatement), and what each adapter of ours runs its own transactions on.
 */
export type StoreDb = Db & { readonly [storeHandle]: true };

export interface Store {
  readonly db: StoreDb;
  readonly kind: 'pglite' | 'postgres';
  /** Opened from a prepared snapshot (migrated and seeded): nothing to seed. */
  readonly fromSnapshot: boolean;
  /**
   * Runs fn on one connection while holding a database-wide lock (a PostgreSQL advisory lock; PGlite
   * has one connection). fn gets a runner for scripts of several statements (migrations).
   */
  withExclusiveLock<T>(fn: (run: ScriptRunner) => Promise<T>): Promise<T>;
  /**
   * PostgreSQL: the connections of the pool now, in use and idle, and the statements waiting for one.
   * PGlite has none to report (one connection inside the process, no pool).
   */
  readonly poolStats?: () => PoolStats;
  close(): Promise<void>;
}

export interface PoolStats {
  readonly inUse: number;
  readonly idle: number;
  readonly waiting: number;
}

export interface StoreOptions {
  readonly databaseUrl?: string | undefined;
  readonly dataDir?: string | undefined;
  /** PostgreSQL only: a schema to create and use (tests give each run its own). */
  readonly schemaName?: string | undefined;
  readonly poolSize?: number | undefined;
  /**
   * PostgreSQL only: how long a connection may take to open, and a statement (or a transaction left
   * idle) to run, ms. A connection that goes silent is given up after the statement's bound too.
   */
  readonly timeouts?: { readonly connectMs: number; readonly statementMs: number } | undefined;
  /**
   * PGlite only: a prepared data directory (migrated and seeded, src/sandbox/snapshot.ts). An
   * in-memory database starts as a copy of it in a temporary directory, removed at close; a DATA_DIR
   * that does not exist yet starts as a copy of it.
   */
  readonly snapshot?: string | undefined;
}

/**
 * The embedded database's settings (written to its postgresql.conf at every start): PostgreSQL's
 * defaults are for a server with memory of its own; in one process beside the gateway these serve
 * the sandbox's data (tens of megabytes) and keep the process small (measured: 40 MB less resident).
 */
const PGLITE_SETTINGS = [
  'shared_buffers = 8MB',
  'wal_buffers = 256kB',
  'work_mem = 1MB',
  'maintenance_work_mem = 8MB',
];

const MIGRATION_LOCK_KEY = 7_337_001;

/** Runs one parameterised statement, by name so PostgreSQL parses it once per connection. */
type StatementRunner = (
  name: string,
  text: string,
  values: readonly unknown[],
) => Promise<Record<string, unknown>[]>;

const statementRunners = new WeakMap<Db, StatementRunner>();

/**
 * The hottest statements (a few per request) bypass Drizzle's query building and row mapping, which
 * cost about as much CPU as the round trip itself: the same SQL on both drivers, written so that both
 * return the same JavaScript types (text, float8, boolean, timestamptz as Date). Only on the handle a
 * store opened: its type (StoreDb) keeps a transaction from being passed.
 */
export function runStatement<T>(
  db: StoreDb,
  name: string,
  text: string,
  values: readonly unknown[],
): Promise<T[]> {
  const run = statementRunners.get(db);
  if (run === undefined) throw new Error(`statement ${name} needs the store's own handle, not a transaction`);
  return run(name, text, values) as Promise<T[]>;
}

export async function openStore(
  options: StoreOptions,
): Promise<Store & { readonly migrated: readonly string[] }> {
  const store = options.databaseUrl === undefined ? await openPglite(options) : await openPostgres(options);
  try {
    return { ...store, migrated: await runMigrations(store) };
  } catch (error) {
    await store.close().catch(() => {});
    throw error;
  }
}

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

async function openPglite(options: StoreOptions): Promise<Store> {
  const { dir, fromSnapshot, remove } = await pgliteDirectory(options);
  // Each driver is loaded only when used: the sandbox never loads pg, PostgreSQL never PGlite.
  const [{ PGlite }, { drizzle }] = await Promise.all([
    import('@electric-sql/pglite'),
    import('drizzle-orm/pglite'),
  ]);
  const client = await PGlite.create(dir, { postgresqlconf: PGLITE_SETTINGS });
  const db = drizzle(client, { schema }) as unknown as StoreDb;
  statementRunners.set(
    db,
    async (_name, text, values) => (await client.query(text, [...values])).rows as Record<string, unknown>[],
  );
  return {
    db,
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

/** The bounds of PostgreSQL connections and statements unless the settings give others (config.ts). */
const DEFAULT_TIMEOUTS = Object.freeze({ connectMs: 5_000, statementMs: 10_000 });

/** SQLSTATEs of a database that cannot serve now: connection exceptions, shutdown, too many clients, a statement past its bound. */
const UNAVAILABLE_STATES = /^(08...|57P0[1-3]|53300|57014)$/;
/** Node's and pg's words for a connection that failed, ended or timed out. */
const UNAVAILABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
]);
const UNAVAILABLE_MESSAGES =
  /^(Connection terminated|timeout exceeded when trying to connect|Query read timeout|Client has encountered a connection error|Connection terminated unexpectedly)/;

/**
 * Whether an error (or its cause, as Drizzle wraps the driver's) says the database cannot answer now,
 * rather than that a statement is wrong: the caller may try again later.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  return anyCause(
    error,
    (code, message) =>
      (code !== undefined && (UNAVAILABLE_STATES.test(code) || UNAVAILABLE_CODES.has(code))) ||
      UNAVAILABLE_MESSAGES.test(message),
  );
}

/** Whether the error or one of its causes (Drizzle wraps the driver's) has a code or message that says so. */
function anyCause(error: unknown, says: (code: string | undefined, message: string) => boolean): boolean {
  for (let current = error, depth = 0; current instanceof Error && depth < 5; depth++) {
    const code = (current as { code?: unknown }).code;
    if (says(typeof code === 'string' ? code : undefined, current.message)) return true;
    current = current.cause;
  }
  return false;
}

/** SQLSTATEs of a connection ended under a statement: the server shut down or crashed, the link failed. */
const LOST_STATES = new Set(['57P01', '57P02', '08006', '08003']);
const LOST_MESSAGES =
  /^(Connection terminated unexpectedly|Connection terminated$|Client has encountered a connection error)/;

/**
 * Whether the connection a statement ran on died under it (not a timeout, not a refusal): the
 * statement took no effect unless it was a commit, and a new connection may well serve it.
 */
export function isConnectionLost(error: unknown): boolean {
  return anyCause(
    error,
    (code, message) =>
      (code !== undefined && (LOST_STATES.has(code) || code === 'ECONNRESET' || code === 'EPIPE')) ||
      LOST_MESSAGES.test(message),
  );
}

/**
 * DATABASE_URL without its `options` parameter, and that parameter's settings. pg lets a connection
 * string's parameters override the pool's configuration, so the URL's `options` (say
 * `?options=-c%20work_mem%3D64MB`) would replace the store's own settings instead of joining them: the
 * timeouts that keep a silent database from stalling the gateway, the schema, the plan mode of the
 * named statements. A string that is not a URL (a socket path) passes unchanged.
 */
function urlOptions(databaseUrl: string): { readonly url: string; readonly options: readonly string[] } {
  let parsed: URL;
  try {
    parsed = new URL(databaseUrl);
  } catch {
    return { url: databaseUrl, options: [] };
  }
  const given = parsed.searchParams.get('options')?.trim();
  if (given === undefined) return { url: databaseUrl, options: [] };
  parsed.searchParams.delete('options');
  return { url: parsed.toString(), options: given === '' ? [] : [given] };
}

async function openPostgres(options: StoreOptions): Promise<Store> {
  const schemaName = options.schemaName;
  if (schemaName !== undefined && !/^[a-z_][a-z0-9_]{0,62}$/.test(schemaName)) {
    throw new Error(`invalid schema name ${schemaName}`);
  }
  const [{ default: pgModule }, { drizzle }] = await Promise.all([
    import('pg'),
    import('drizzle-orm/node-postgres'),
  ]);
  const { connectMs, statementMs } = options.timeouts ?? DEFAULT_TIMEOUTS;
  const given = urlOptions(options.databaseUrl!);
  // The operator's settings first, the store's after them: for a setting named twice the last wins.
  const settings = [
    ...given.options,
    `-c statement_timeout=${statementMs}`,
    `-c idle_in_transaction_session_timeout=${statementMs}`,
    ...(schemaName === undefined ? [] : [`-c search_path=${schemaName}`]),
  ];
  const poolOf = (extra: readonly string[]) => {
    const opened = new pgModule.Pool({
      connectionString: given.url,
      max: options.poolSize ?? 10,
      options: [...settings, ...extra].join(' '),
      connectionTimeoutMillis: connectMs,
      // The server's statement_timeout ends a slow statement; this ends the wait for a server that no
      // longer answers at all (a silent network), and the pool drops that connection.
      query_timeout: statementMs + 1_000,
      keepAlive: true,
      keepAliveInitialDelayMillis: 10_000,
    });
    // A broken idle connection must not crash the process; the pool replaces it.
    opened.on('error', () => {});
    return opened;
  };
  const pool = poolOf([]);
  // The named statements (runStatement) on connections of their own that plan each statement once:
  // PostgreSQL's choice between a generic and a custom plan keeps re-planning these batched
  // statements at every execution (a custom plan looks cheaper for a short array), which cost more
  // than running them. Drizzle's statements are unnamed, planned with their values: a generic plan
  // could not use a partial index whose predicate is a parameter's value (status = 'ACCP').
  const statements = poolOf(['-c plan_cache_mode=force_generic_plan']);
  const db = drizzle(pool, { schema }) as unknown as StoreDb;
  statementRunners.set(
    db,
    async (name, text, values) => (await statements.query({ name, text, values: [...values] })).rows,
  );
  const store: Store = {
    db,
    kind: 'postgres',
    fromSnapshot: false,
    withExclusiveLock: async (fn) => {
      const client = await pool.connect();
      try {
        await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
        return await fn(async (script) => {
          const results: unknown = await client.query(script);
          const last = Array.isArray(results) ? results.at(-1) : results;
          return (last as pg.QueryResult).rows;
        });
      } finally {
        await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]).catch(() => {});
        client.release();
      }
    },
    poolStats: () => ({
      inUse: pool.totalCount - pool.idleCount + statements.totalCount - statements.idleCount,
      idle: pool.idleCount + statements.idleCount,
      waiting: pool.waitingCount + statements.waitingCount,
    }),
    close: async () => {
      await Promise.all([pool.end(), statements.end()]);
    },
  };
  // Under the lock: CREATE SCHEMA IF NOT EXISTS races with itself in PostgreSQL.
  if (schemaName !== undefined)
    await store.withExclusiveLock((run) => run(`CREATE SCHEMA IF NOT EXISTS ${schemaName}`));
  return store;
}
