// The database as the rest of the code sees it: one Db type for PGlite and PostgreSQL alike (both
// driven through Drizzle with the same schema), the store's own handle, and the statements that bypass
// Drizzle (runStatement). Opening a database is store/database/open.ts.
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import type { ScriptRunner } from './migrate.ts';
import type * as schema from './schema.ts';

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
  /**
   * The reads that may be a little behind the primary (account information, funds checks, final
   * payments' statuses): a streaming standby's while one is within DATABASE_READ_URL's lag bound, else
   * the primary's (store/database/replicas.ts). The same handle as `db` on PGlite and on one PostgreSQL.
   * Single statements only: what must see a write of its own, or writes, goes to `db`.
   */
  readonly readDb: StoreDb;
  /** Reads on readDb served so far, by the server that served them (none without standbys). */
  readonly readCounts?: () => ReadCounts;
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

export interface ReadCounts {
  readonly standby: number;
  readonly primary: number;
}

export interface PoolStats {
  readonly inUse: number;
  readonly idle: number;
  readonly waiting: number;
}

/** Where the store says what happened to its connections (pino's shape). */
export interface StoreLogger {
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
}

export interface StoreOptions {
  readonly databaseUrl?: string | undefined;
  /**
   * PostgreSQL: the host in use found, lost or changed (a failover followed). PGlite: a vacuum that
   * failed (store/database/pglite-vacuum.ts).
   */
  readonly logger?: StoreLogger | undefined;
  readonly dataDir?: string | undefined;
  /** PostgreSQL only: a schema to create and use (tests give each run its own). */
  readonly schemaName?: string | undefined;
  readonly poolSize?: number | undefined;
  /** PostgreSQL only: standbys for readDb (libpq's multi-host form) and how far behind they may be, ms. */
  readonly readUrl?: string | undefined;
  readonly readMaxLagMs?: number | undefined;
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
  /**
   * PGlite only: how often its vacuum turn looks at the tables, ms (autovacuum_naptime's 60 s). 0 for
   * no turns: the caller vacuums (bench/trail-process.ts, which keeps them out of its count as it keeps
   * PostgreSQL's autovacuum out).
   */
  readonly vacuumIntervalMs?: number | undefined;
}

/** Runs one parameterised statement, by name so PostgreSQL parses it once per connection. */
export type StatementRunner = (
  name: string,
  text: string,
  values: readonly unknown[],
) => Promise<Record<string, unknown>[]>;

const statementRunners = new WeakMap<Db, StatementRunner>();

/**
 * The hottest statements (a few per request) bypass Drizzle's query building and row mapping, which
 * cost about as much CPU as the round trip itself: the same SQL on both drivers, written so that both
 * return the same JavaScript types (text, float8, boolean, timestamptz as Date). Only on the handle a
 * store opened: its type (StoreDb) keeps a transaction from being passed. Each statement that comes
 * this way is named in docs/decisions.md ("Issue 38: the store's raw hot paths"); the rest is Drizzle.
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

/** The rows of a Drizzle `execute` (both drivers answer `{ rows }`), typed as the statement selects them. */
export function rowsOf<T>(result: unknown): T[] {
  return (result as { rows: T[] }).rows;
}

/** Makes runStatement serve a handle that a store opened (store/database/pglite.ts and postgres.ts). */
export function serveStatements(db: StoreDb, run: StatementRunner): void {
  statementRunners.set(db, run);
}
