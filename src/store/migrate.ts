// Applies the SQL files of ./migrations in name order, each once and each in its own transaction,
// under a database-wide lock so that several gateway processes starting together migrate once.
import { readdir, readFile } from 'node:fs/promises';

const MIGRATIONS_DIR = new URL('./migrations/', import.meta.url);

/** Runs SQL text without parameters, several statements allowed; answers the rows of the last one. */
export type ScriptRunner = (script: string) => Promise<Record<string, unknown>[]>;

/** What migrating needs of a store: one connection under a database-wide lock (see database.ts). */
export interface Migratable {
  withExclusiveLock<T>(fn: (run: ScriptRunner) => Promise<T>): Promise<T>;
}

export async function runMigrations(store: Migratable): Promise<string[]> {
  const files = (await readdir(MIGRATIONS_DIR)).filter((name) => name.endsWith('.sql')).sort();
  return store.withExclusiveLock(async (run) => {
    await run(
      'CREATE TABLE IF NOT EXISTS schema_migrations (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())',
    );
    const applied = new Set((await run('SELECT name FROM schema_migrations')).map((row) => String(row.name)));
    const ran: string[] = [];
    for (const name of files) {
      if (applied.has(name)) continue;
      const script = await readFile(new URL(name, MIGRATIONS_DIR), 'utf8');
      const quoted = name.replaceAll("'", "''");
      try {
        await run(`BEGIN;\n${script}\nINSERT INTO schema_migrations (name) VALUES ('${quoted}');\nCOMMIT;`);
      } catch (error) {
        await run('ROLLBACK').catch(() => {});
        throw new Error(`migration ${name} failed: ${(error as Error).message}`);
      }
      ran.push(name);
    }
    return ran;
  });
}
