// PostgreSQL (DATABASE_URL): a pool for Drizzle's statements and one of its own for the named statements
// (runStatement), with the store's timeouts and schema. With several hosts in the URL (libpq's form),
// both pools connect to the host primary.ts finds taking writes, and follow it through a failover.
import type pg from 'pg';
import { type Store, type StoreDb, type StoreOptions, serveStatements } from '../database.ts';
import * as schema from '../schema.ts';
import { routedClient } from './host-client.ts';
import { parseDatabaseHosts } from './hosts.ts';
import { releaseClientsOfFailedTransactions } from './pooled-transaction.ts';
import { openReadStore } from './replicas.ts';

const MIGRATION_LOCK_KEY = 7_337_001;

/** The bounds of PostgreSQL connections and statements unless the settings give others (config.ts). */
const DEFAULT_TIMEOUTS = Object.freeze({ connectMs: 5_000, statementMs: 10_000 });

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

export async function openPostgres(options: StoreOptions): Promise<Store> {
  const schemaName = options.schemaName;
  if (schemaName !== undefined && !/^[a-z_][a-z0-9_]{0,62}$/.test(schemaName)) {
    throw new Error(`invalid schema name ${schemaName}`);
  }
  const [{ default: pgModule }, { drizzle }] = await Promise.all([
    import('pg'),
    import('drizzle-orm/node-postgres'),
  ]);
  const { connectMs, statementMs } = options.timeouts ?? DEFAULT_TIMEOUTS;
  const parsed = parseDatabaseHosts(options.databaseUrl!);
  const urlOf = (host: (typeof parsed.hosts)[number]) => urlOptions(parsed.urlFor(host)).url;
  // The pool's own URL: DATABASE_URL as given for one host without target_session_attrs (as before),
  // else the first host's (the routed client connects where the locator says).
  const given = urlOptions(
    parsed.hosts.length === 1 && parsed.target === undefined
      ? options.databaseUrl!
      : parsed.urlFor(parsed.hosts[0]!),
  );
  // Several hosts (or a target that needs a check): connections go where the locator finds the primary.
  const Client = routedClient(pgModule, parsed, { urlOf, connectMs, logger: options.logger });
  // The operator's settings first, the store's after them: for a setting named twice the last wins.
  const settings = [
    `-c statement_timeout=${statementMs}`,
    `-c idle_in_transaction_session_timeout=${statementMs}`,
    ...(schemaName === undefined ? [] : [`-c search_path=${schemaName}`]),
  ];
  // DATABASE_URL's primary (through the routed client), or one standby of DATABASE_READ_URL
  // (replicas.ts: one host's URL, connected as given) with the same bounds.
  const poolOf = (extra: readonly string[], standbyUrl?: string) => {
    const target = standbyUrl === undefined ? given : urlOptions(standbyUrl);
    const routed = standbyUrl === undefined ? Client : undefined;
    const opened = new pgModule.Pool({
      connectionString: target.url,
      ...(routed === undefined ? {} : { Client: routed }),
      max: options.poolSize ?? 10,
      options: [...target.options, ...settings, ...extra].join(' '),
      connectionTimeoutMillis: connectMs,
      // The server's statement_timeout ends a slow statement; this ends the wait for a server that no
      // longer answers at all (a silent network), and the pool drops that connection.
      query_timeout: statementMs + 1_000,
      keepAlive: true,
      keepAliveInitialDelayMillis: 10_000,
    });
    // A broken idle connection must not crash the process; the pool replaces it.
    opened.on('error', () => {});
    // Nor one that is checked out (a transaction between its statements, the migrations' lock): pg-pool
    // takes its own listener off a client while it is lent, and a client without one that is reset
    // (RST) throws 'Unhandled error event' from the socket. The statement in flight, if any, fails on
    // its own; the pool drops the client when it comes back broken.
    opened.on('connect', (client) => client.on('error', () => {}));
    return opened;
  };
  const pool = poolOf([]);
  // The named statements (runStatement) on connections of their own that plan each statement once:
  // PostgreSQL's choice between a generic and a custom plan keeps re-planning these batched
  // statements at every execution (a custom plan looks cheaper for a short array), which cost more
  // than running them. Drizzle's statements are unnamed, planned with their values: a generic plan
  // could not use a partial index whose predicate is a parameter's value (status = 'ACCP').
  const generic = ['-c plan_cache_mode=force_generic_plan'];
  const statements = poolOf(generic);
  releaseClientsOfFailedTransactions();
  const db = drizzle(pool, { schema }) as unknown as StoreDb;
  serveStatements(
    db,
    async (name, text, values) => (await statements.query({ name, text, values: [...values] })).rows,
  );
  const reads =
    options.readUrl === undefined
      ? undefined
      : await openReadStore({
          readUrl: options.readUrl,
          maxLagMs: options.readMaxLagMs ?? 1_000,
          primary: { pool, statements },
          poolsFor: (url) => ({ pool: poolOf([], url), statements: poolOf(generic, url) }),
        });
  const store: Store = {
    db,
    readDb: reads?.db ?? db,
    ...(reads === undefined ? {} : { readCounts: reads.counts }),
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
      await reads?.close();
      await Promise.all([pool.end(), statements.end()]);
    },
  };
  // Under the lock: CREATE SCHEMA IF NOT EXISTS races with itself in PostgreSQL.
  if (schemaName !== undefined)
    await store.withExclusiveLock((run) => run(`CREATE SCHEMA IF NOT EXISTS ${schemaName}`));
  return store;
}
