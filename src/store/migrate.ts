// Applies the SQL files of ./migrations in name order, each once and each in its own transaction,
// then the definitions: the current text of each database function (./definitions, one file each, and
// the payments' transition rule generated from the domain's table, transition-rule.ts), each applied
// again whenever its text changed (Flyway's repeatable migrations), unless a newer build migrated the
// database (it has a migration this build lacks). All under a database-wide lock, so that several
// gateway processes starting together migrate once.
import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { TRANSITION_RULE, transitionRuleSql } from './transition-rule.ts';

const MIGRATIONS_DIR = new URL('./migrations/', import.meta.url);
const DEFINITIONS_DIR = new URL('./definitions/', import.meta.url);

/** Runs SQL text without parameters, several statements allowed; answers the rows of the last one. */
export type ScriptRunner = (script: string) => Promise<Record<string, unknown>[]>;

/** What migrating needs of a store: one connection under a database-wide lock (see database.ts). */
export interface Migratable {
  withExclusiveLock<T>(fn: (run: ScriptRunner) => Promise<T>): Promise<T>;
}

/** A definition: its name (a file's, without `.sql`) and the SQL that creates or replaces it. */
export interface Definition {
  readonly name: string;
  readonly sql: string;
}

/** The definitions as this code has them: the files of ./definitions in name order, then the generated rule. */
export async function definitions(): Promise<Definition[]> {
  const files = (await readdir(DEFINITIONS_DIR)).filter((name) => name.endsWith('.sql')).sort();
  const read = await Promise.all(
    files.map(async (file) => ({
      name: file.slice(0, -'.sql'.length),
      sql: await readFile(new URL(file, DEFINITIONS_DIR), 'utf8'),
    })),
  );
  return [...read, { name: TRANSITION_RULE, sql: transitionRuleSql() }];
}

export function checksum(sql: string): string {
  return createHash('sha256').update(sql).digest('hex');
}

function quote(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}

/**
 * Migrates: answers the names of the migrations that ran and, as `definitions/<name>`, of the
 * definitions applied. `wanted` is for tests; a start applies this code's definitions.
 */
export async function runMigrations(store: Migratable, wanted?: readonly Definition[]): Promise<string[]> {
  const files = (await readdir(MIGRATIONS_DIR)).filter((name) => name.endsWith('.sql')).sort();
  const current = wanted ?? (await definitions());
  return store.withExclusiveLock(async (run) => {
    await run(
      'CREATE TABLE IF NOT EXISTS schema_migrations (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())',
    );
    const applied = new Set((await run('SELECT name FROM schema_migrations')).map((row) => String(row.name)));
    const ran: string[] = [];
    for (const name of files) {
      if (applied.has(name)) continue;
      const script = await readFile(new URL(name, MIGRATIONS_DIR), 'utf8');
      try {
        await run(
          `BEGIN;\n${script}\nINSERT INTO schema_migrations (name) VALUES (${quote(name)});\nCOMMIT;`,
        );
      } catch (error) {
        await run('ROLLBACK').catch(() => {});
        throw new Error(`migration ${name} failed: ${(error as Error).message}`);
      }
      ran.push(name);
    }
    // A database that a newer build has migrated keeps that build's definitions: an older process
    // starting during a rolling deploy or after a rollback must not put its own functions (and its
    // own transition table) back under the newer ones.
    const known = new Set(files);
    if ([...applied].some((name) => !known.has(name))) return ran;
    return [...ran, ...(await applyDefinitions(run, current))];
  });
}

/**
 * The definitions whose text is not the one recorded, applied in one transaction after the migrations
 * (a set of functions that call each other changes together, or not at all) and recorded with the
 * SHA-256 of their text.
 */
async function applyDefinitions(run: ScriptRunner, wanted: readonly Definition[]): Promise<string[]> {
  await run(
    'CREATE TABLE IF NOT EXISTS schema_definitions (name text PRIMARY KEY, sha256 text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())',
  );
  const recorded = new Map(
    (await run('SELECT name, sha256 FROM schema_definitions')).map((row) => [
      String(row.name),
      String(row.sha256),
    ]),
  );
  const changed = wanted.filter((definition) => recorded.get(definition.name) !== checksum(definition.sql));
  if (changed.length === 0) return [];
  const script = changed
    .map(
      ({ name, sql }) => `${sql}
INSERT INTO schema_definitions (name, sha256) VALUES (${quote(name)}, ${quote(checksum(sql))})
  ON CONFLICT (name) DO UPDATE SET sha256 = EXCLUDED.sha256, applied_at = now();`,
    )
    .join('\n');
  try {
    await run(`BEGIN;\n${script}\nCOMMIT;`);
  } catch (error) {
    await run('ROLLBACK').catch(() => {});
    throw new Error(
      `definitions ${changed.map((definition) => definition.name).join(', ')} failed: ${(error as Error).message}`,
    );
  }
  return changed.map((definition) => `definitions/${definition.name}`);
}
