// The database functions' current definitions (src/store/definitions, one file each, and the generated
// transition rule), applied by the migration runner after the migrations and again whenever their text
// changes: a database migrated before them ends with the same functions as a fresh one, and a
// definition is the migrations' last word on its function. On PGlite and on PostgreSQL.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import pg from 'pg';
import { openStore } from '../../src/store/database/open.ts';
import type { Store } from '../../src/store/database.ts';
import { checksum, type Definition, definitions, runMigrations } from '../../src/store/migrate.ts';
import { TRANSITION_RULE } from '../../src/store/transition-rule.ts';
import {
  type Backend,
  backends,
  openTestStore,
  queryRows,
  TEST_DATABASE_URL,
  type TestStore,
} from '../helpers/gateway.ts';

const MIGRATIONS = new URL('../../src/store/migrations/', import.meta.url);
/** The last migration written before the definitions: later ones leave the defined functions alone. */
const LAST_BEFORE_DEFINITIONS = '0029_decoupled_any_psu_id.sql';

async function migrationFiles(): Promise<string[]> {
  return (await readdir(MIGRATIONS)).filter((name) => name.endsWith('.sql')).sort();
}

/** The migration runner as it was before the definitions: the versioned files only. */
async function migrateAsBefore(run: (script: string) => Promise<unknown>): Promise<void> {
  await run(
    'CREATE TABLE IF NOT EXISTS schema_migrations (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())',
  );
  for (const name of await migrationFiles()) {
    const script = await readFile(new URL(name, MIGRATIONS), 'utf8');
    await run(`BEGIN;\n${script}\nINSERT INTO schema_migrations (name) VALUES ('${name}');\nCOMMIT;`);
  }
}

interface Catalogue {
  readonly functions: { name: string; args: string; source: string }[];
  readonly triggers: { name: string; definition: string }[];
}

const FUNCTIONS = `SELECT p.proname AS name, pg_get_function_identity_arguments(p.oid) AS args, p.prosrc AS source
  FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
 WHERE n.nspname = current_schema() ORDER BY 1, 2`;
// PostgreSQL 15 names the table with its schema, which differs between two test databases.
const TRIGGERS = `SELECT t.tgname AS name, replace(pg_get_triggerdef(t.oid), n.nspname || '.', '') AS definition
  FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid JOIN pg_namespace n ON n.oid = c.relnamespace
 WHERE n.nspname = current_schema() AND NOT t.tgisinternal ORDER BY 1`;

async function catalogueOf(store: Store): Promise<Catalogue> {
  return {
    functions: await queryRows(store, sql.raw(FUNCTIONS)),
    triggers: await queryRows(store, sql.raw(TRIGGERS)),
  };
}

/**
 * A database migrated by the runner of before the definitions, its functions as the migrations left
 * them, and the store that then opens it (migrating it on).
 */
async function migratedBefore(backend: Backend): Promise<{
  history: Catalogue['functions'];
  store: Store & { readonly migrated: readonly string[] };
  drop: () => Promise<void>;
}> {
  if (backend === 'pglite') {
    const dir = await mkdtemp(join(tmpdir(), 'psd2-gateway-definitions-'));
    const { PGlite } = await import('@electric-sql/pglite');
    const client = await PGlite.create(dir);
    await migrateAsBefore((script) => client.exec(script));
    const history = (await client.query<Catalogue['functions'][number]>(FUNCTIONS)).rows;
    await client.close();
    const store = await openStore({ dataDir: dir });
    return { history, store, drop: () => rm(dir, { recursive: true, force: true }) };
  }
  const schemaName = `t_${randomBytes(6).toString('hex')}`;
  const client = new pg.Client({
    connectionString: TEST_DATABASE_URL,
    options: `-c search_path=${schemaName}`,
  });
  await client.connect();
  await client.query(`CREATE SCHEMA ${schemaName}`);
  await migrateAsBefore((script) => client.query(script));
  const history = (await client.query(FUNCTIONS)).rows as Catalogue['functions'];
  const store = await openStore({ databaseUrl: TEST_DATABASE_URL, schemaName });
  return {
    history,
    store,
    drop: async () => {
      await client.query(`DROP SCHEMA IF EXISTS ${schemaName} CASCADE`);
      await client.end();
    },
  };
}

test('migrations after the definitions leave writing the defined functions to them', async () => {
  const names = (await definitions()).map((definition) => definition.name);
  const later = (await migrationFiles()).filter((name) => name > LAST_BEFORE_DEFINITIONS);
  for (const file of later) {
    const script = await readFile(new URL(file, MIGRATIONS), 'utf8');
    for (const name of names) {
      // A migration may drop a defined function (before its definition creates it with another
      // signature), never write one.
      assert.doesNotMatch(
        script,
        new RegExp(`CREATE\\s+(OR\\s+REPLACE\\s+)?FUNCTION\\s+${name}\\b`, 'i'),
        `${file} writes ${name}: change src/store/definitions instead`,
      );
    }
  }
});

for (const backend of backends()) {
  describe(`definitions on ${backend}`, () => {
    let store: TestStore;
    before(async () => {
      store = await openTestStore(backend);
    });
    after(() => store.close());

    test('a database migrated before the definitions ends with the functions of a fresh one', async () => {
      const current = await definitions();
      const fresh = await catalogueOf(store);
      const older = await migratedBefore(backend);
      try {
        assert.deepEqual(
          older.store.migrated,
          current.map((definition) => `definitions/${definition.name}`),
        );
        const upgraded = await catalogueOf(older.store);
        assert.deepEqual(upgraded, fresh);
        // Every function of the schema has its definition, and the files are the migrations' last word
        // (copied exactly: the same source), but for the transition rule, the one function they lacked,
        // and those the definitions changed since (ledger_execute records an answer under its
        // Idempotency-Key claim since issue 40, in idempotency_claims).
        assert.deepEqual(
          upgraded.functions.map((row) => row.name).sort(),
          current.map((definition) => definition.name).sort(),
        );
        // The notifications' functions (issue 41) were born as definitions: no migration had them.
        const changedSince = new Set([
          TRANSITION_RULE,
          'ledger_execute',
          'authorization_notified',
          'consent_status_notified',
          'notification_body',
          'notification_content_of',
          'notify_tpp',
          'sca_targets',
        ]);
        assert.deepEqual(
          upgraded.functions.filter((row) => !changedSince.has(row.name)),
          older.history.filter((row) => !changedSince.has(row.name)),
        );
        const executes = older.history.filter((row) => row.name === 'ledger_execute');
        assert.equal(executes.length, 1, 'the migrations made ledger_execute');
        assert.notDeepEqual(
          upgraded.functions.find((row) => row.name === 'ledger_execute'),
          executes[0],
          'the definition of ledger_execute replaced the migrations one',
        );
      } finally {
        await older.store.close();
        await older.drop();
      }
    });

    test('a definition is applied once its text changed, and not again while it stays', async () => {
      const current = await definitions();
      const recorded = async () =>
        Object.fromEntries(
          (
            await queryRows<{ name: string; sha256: string }>(
              store,
              sql`SELECT name, sha256 FROM schema_definitions ORDER BY name`,
            )
          ).map((row) => [row.name, row.sha256]),
        );
      assert.deepEqual(
        await recorded(),
        Object.fromEntries(current.map((definition) => [definition.name, checksum(definition.sql)])),
      );
      assert.deepEqual(await runMigrations(store), []);
      const probe = (n: number): Definition => ({
        name: 'definitions_probe',
        sql: `CREATE OR REPLACE FUNCTION definitions_probe() RETURNS integer LANGUAGE sql AS $$ SELECT ${n} $$;\n`,
      });
      const probed = async () =>
        (await queryRows<{ n: number }>(store, sql`SELECT definitions_probe() AS n`))[0]?.n;
      for (const n of [1, 2]) {
        assert.deepEqual(await runMigrations(store, [...current, probe(n)]), [
          'definitions/definitions_probe',
        ]);
        assert.deepEqual(await runMigrations(store, [...current, probe(n)]), [], `text ${n} applied once`);
        assert.equal(await probed(), n, `the function of text ${n}`);
        assert.equal((await recorded()).definitions_probe, checksum(probe(n).sql), `checksum of text ${n}`);
      }
      // The changed definitions are applied in one transaction: one that fails leaves every one as it was.
      const broken = {
        name: 'definitions_broken',
        sql: 'CREATE OR REPLACE FUNCTION definitions_broken( $$;\n',
      };
      await assert.rejects(runMigrations(store, [...current, probe(3), broken]), /definitions_broken/);
      assert.equal(await probed(), 2, 'the probe as it was');
      assert.equal((await recorded()).definitions_probe, checksum(probe(2).sql), 'its checksum as it was');
      // A newer build migrated the database (a migration this build lacks): its definitions stay.
      await store.db.execute(sql`INSERT INTO schema_migrations (name) VALUES ('9999_a_newer_build.sql')`);
      try {
        assert.deepEqual(await runMigrations(store, [...current, probe(4)]), [], 'nothing applied');
        assert.equal(await probed(), 2, "the newer build's probe");
      } finally {
        await store.db.execute(sql`DELETE FROM schema_migrations WHERE name = '9999_a_newer_build.sql'`);
      }
      assert.deepEqual(await runMigrations(store, [...current, probe(4)]), ['definitions/definitions_probe']);
      assert.equal(await probed(), 4, 'applied once the build knows every migration');
    });
  });
}
