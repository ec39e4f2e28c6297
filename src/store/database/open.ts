// Opens the database: PGlite (embedded, in memory or on disk) by default, PostgreSQL when a URL is given;
// either way migrated before it is handed out (a fresh copy of the sandbox snapshot already is).
import type { Store, StoreOptions } from '../database.ts';
import { runMigrations } from '../migrate.ts';

export async function openStore(
  options: StoreOptions,
): Promise<Store & { readonly migrated: readonly string[] }> {
  // Each backend's module is loaded only when chosen: postgres.ts patches Drizzle's pg session, whose
  // module loads pg (8 MB resident in the sandbox, which never connects to a server).
  const store =
    options.databaseUrl === undefined
      ? await (await import('./pglite.ts')).openPglite(options)
      : await (await import('./postgres.ts')).openPostgres(options);
  try {
    // A fresh copy of the sandbox snapshot was migrated by this very build (npm run build writes the
    // code and the snapshot together): a migrations pass would only read back what it wrote.
    return { ...store, migrated: store.fromSnapshot ? [] : await runMigrations(store) };
  } catch (error) {
    await store.close().catch(() => {});
    throw error;
  }
}
