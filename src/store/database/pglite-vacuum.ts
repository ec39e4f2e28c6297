// PGlite runs PostgreSQL as one backend with no background workers, so nothing vacuums it: every status
// move leaves a dead version of a payment behind, and a sandbox kept running slows down. In the bench's hot
// five-step flow, a flow took 1.5 ms at first and 3-4 ms after 8,000 flows, and 1.4 ms again after a
// VACUUM (docs/decisions.md "PGlite vacuumed as autovacuum would"). This is autovacuum's work, done
// in-process on a timer: every AUTOVACUUM_NAPTIME_MS a turn vacuums and analyses the tables past
// autovacuum's thresholds, each table's own where its storage parameters set them.
import { sql } from 'drizzle-orm';
import { every } from '../../domain/periodic.ts';
import { type Db, rowsOf } from '../database.ts';

/** autovacuum_naptime's default: how often a turn looks at the tables. */
const AUTOVACUUM_NAPTIME_MS = 60_000;

/** How long closing the store waits for a turn under way. */
const STOP_WAIT_MS = 5_000;

interface TableNeeds {
  readonly name: string;
  readonly vacuum: boolean;
  readonly analyze: boolean;
}

/** A table's storage parameter `name` as SQL, or else `otherwise`. */
function option(name: string, type: 'float8' | 'boolean', otherwise: string): string {
  return `COALESCE((SELECT option_value FROM pg_options_to_table(c.reloptions) WHERE option_name = '${name}')::${type},
    ${otherwise})`;
}

/** A table's autovacuum threshold or scale factor: its storage parameter, or the server's setting. */
function parameter(name: string): string {
  return option(name, 'float8', `current_setting('${name}')::float8`);
}

/** Whether autovacuum takes the table at all (the server's `autovacuum` starts autovacuum's processes). */
const ENABLED = option('autovacuum_enabled', 'boolean', 'true');

/**
 * One turn: each table of the current schema that autovacuum would take (relation_needs_vacanalyze), by
 * its storage parameters (`ALTER TABLE ... SET (autovacuum_...)`) or else the server's settings, which
 * PGlite leaves at PostgreSQL's defaults. A vacuum when its dead rows pass autovacuum_vacuum_threshold
 * (50) plus autovacuum_vacuum_scale_factor (0.2) of its rows, or its rows inserted since the last vacuum
 * pass autovacuum_vacuum_insert_threshold (1,000; -1 for never) plus autovacuum_vacuum_insert_scale_factor
 * (0.2) of its rows. An analysis when its rows changed since the last one pass
 * autovacuum_analyze_threshold (50) plus autovacuum_analyze_scale_factor (0.1) of its rows. A table whose
 * autovacuum_enabled is off is left alone. Each is done only where it is due, as autovacuum does: a
 * vacuum for the inserts alone does not analyse. Answers the tables vacuumed and those analysed.
 */
export async function vacuumTurn(db: Db): Promise<{ vacuumed: string[]; analyzed: string[] }> {
  // The counts this backend has not reported yet (it reports at most once a second) count too.
  await db.execute(sql`SELECT pg_stat_force_next_flush()`);
  const tuples = 'greatest(c.reltuples, 0)';
  const insertThreshold = parameter('autovacuum_vacuum_insert_threshold');
  const tables = rowsOf<TableNeeds>(
    await db.execute(
      sql.raw(`SELECT s.relname::text AS name,
        ${ENABLED} AND (
          s.n_dead_tup > ${parameter('autovacuum_vacuum_threshold')}
            + ${parameter('autovacuum_vacuum_scale_factor')} * ${tuples}
          OR (${insertThreshold} >= 0 AND s.n_ins_since_vacuum > ${insertThreshold}
            + ${parameter('autovacuum_vacuum_insert_scale_factor')} * ${tuples})) AS vacuum,
        ${ENABLED}
          AND s.n_mod_since_analyze > ${parameter('autovacuum_analyze_threshold')}
            + ${parameter('autovacuum_analyze_scale_factor')} * ${tuples} AS analyze
      FROM pg_stat_user_tables s JOIN pg_class c ON c.oid = s.relid
      WHERE s.schemaname = current_schema()
      ORDER BY s.relname`),
    ),
  );
  const vacuumed: string[] = [];
  const analyzed: string[] = [];
  for (const table of tables) {
    const name = sql.identifier(table.name);
    if (table.vacuum) await db.execute(table.analyze ? sql`VACUUM (ANALYZE) ${name}` : sql`VACUUM ${name}`);
    else if (table.analyze) await db.execute(sql`ANALYZE ${name}`);
    if (table.vacuum) vacuumed.push(table.name);
    if (table.analyze) analyzed.push(table.name);
  }
  return { vacuumed, analyzed };
}

/** Starts the turns; answers the stop, which waits for a turn under way at most STOP_WAIT_MS. */
export function startVacuum(
  db: Db,
  {
    intervalMs = AUTOVACUUM_NAPTIME_MS,
    onError,
  }: { intervalMs?: number | undefined; onError: (error: unknown) => void },
): () => Promise<void> {
  return every(() => vacuumTurn(db), { intervalMs, stopWaitMs: STOP_WAIT_MS, onError });
}
