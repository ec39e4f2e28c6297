// Seeds the sandbox: the static test customers and the sandbox app (SANDBOX_CLIENT_ID and
// SANDBOX_REDIRECT_URI, or generated ones that are then kept in the database).
import type { Config } from '../config.ts';
import { newSandboxClientId } from '../domain/secrets.ts';
import { seedCredentials } from '../ports/psu-directory.ts';
import { type App, findApp, findSeededApp, insertApp, updateRedirectUri } from '../store/apps-repository.ts';
import { insertCustomers } from '../store/customers-repository.ts';
import type { Db } from '../store/database.ts';
import { TEST_ACCOUNTS, TEST_CARDS, TEST_PSUS } from './test-data.ts';

/** The password of every test PSU in the built-in PSU directory (README lists it). */
export const TEST_PSU_PASSWORD = 'open-sesame-2026';

/** Seeds the test customers, and their passwords in the built-in PSU directory (live mode logs in with them). */
export async function seedTestCustomers(db: Db): Promise<void> {
  await db.transaction((trx) =>
    insertCustomers(trx, { psus: TEST_PSUS, accounts: TEST_ACCOUNTS, cards: TEST_CARDS }),
  );
  await seedCredentials(
    db,
    TEST_PSUS.map((psu) => psu.psuId),
    TEST_PSU_PASSWORD,
  );
}

/** Where the sandbox app is redirected to when no redirect URI was configured: our own callback page. */
export function defaultRedirectUri(config: Config): string {
  const origin = config.publicUrl ?? `http://localhost:${config.port}`;
  return `${origin}${config.basePath}/sandbox/callback`;
}

export async function ensureSandboxApp(db: Db, config: Config): Promise<App> {
  const redirectUri = config.sandboxRedirectUri ?? defaultRedirectUri(config);
  const wanted = config.sandboxClientId;
  const existing = wanted === undefined ? await findSeededApp(db) : await findApp(db, wanted);
  if (existing !== undefined) {
    if (existing.redirectUri !== redirectUri) await updateRedirectUri(db, existing.clientId, redirectUri);
    return { ...existing, redirectUri };
  }
  const app: App = {
    clientId: wanted ?? newSandboxClientId(),
    name: 'Sandbox app',
    description: 'The app seeded for trying the sandbox',
    redirectUri,
    seeded: true,
  };
  await insertApp(db, app);
  return app;
}
