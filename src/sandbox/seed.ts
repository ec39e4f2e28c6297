// Seeds the sandbox: the static test customers and the sandbox app (SANDBOX_CLIENT_ID and
// SANDBOX_REDIRECT_URI, or generated ones that are then kept in the database).

import { seedCredentials } from '../adapters/built-in-psu-directory.ts';
import type { Config } from '../config.ts';
import type { App } from '../domain/apps.ts';
import { newSandboxClientId } from '../domain/secrets.ts';
import { findApp, findSeededApp, insertApp, updateRedirectUri } from '../store/apps-repository.ts';
import { insertCustomers } from '../store/customers-repository.ts';
import type { Db, StoreDb } from '../store/database.ts';
import { hasHistory, insertHistory } from '../store/ledger/history.ts';
import { clearSandboxActivity, restoreAccounts } from '../store/sandbox-repository.ts';
import { sandboxHistory, withOpeningBalances } from './history.ts';
import { TEST_CARDS, TEST_PSUS } from './test-data.ts';

const isoDate = (date: Date) => date.toISOString().slice(0, 10);

/** The password of every test PSU in the built-in PSU directory (README lists it). */
export const TEST_PSU_PASSWORD = 'open-sesame-2026';

/**
 * Seeds the test customers with their transaction history up to `today` (opening balances set so
 * that each account then holds its documented balance), and their passwords in the built-in PSU
 * directory (live mode logs in with them). Customers and history already there are kept as they are.
 */
export async function seedTestCustomers(db: Db, today: string = isoDate(new Date())): Promise<void> {
  await db.transaction(async (trx) => {
    const fresh = !(await hasHistory(trx));
    const book = await insertTestCustomers(trx, today);
    // A database seeded before the history existed gets it now, with matching opening balances.
    if (fresh) await book();
  });
  await seedCredentials(
    db,
    TEST_PSUS.map((psu) => psu.psuId),
    TEST_PSU_PASSWORD,
  );
}

/**
 * POST /sandbox/reset: one transaction that removes everything TPPs did (payments, baskets, consents,
 * PSU authorizations, bookings) and restores the test customers with a fresh history up to `today`.
 */
export async function resetSandbox(db: Db, today: string): Promise<void> {
  await db.transaction(async (trx) => {
    await clearSandboxActivity(trx);
    await (await insertTestCustomers(trx, today))();
  });
}

/** Inserts the test customers that are missing; answers how to book their history (and opening balances). */
async function insertTestCustomers(trx: Db, today: string): Promise<() => Promise<void>> {
  const history = sandboxHistory(today);
  const seeded = withOpeningBalances(history);
  await insertCustomers(trx, {
    psus: TEST_PSUS,
    accounts: seeded.accounts,
    cardAccounts: seeded.cardAccounts,
    cards: TEST_CARDS,
  });
  return async () => {
    await restoreAccounts(trx, seeded.accounts);
    await insertHistory(trx, history, new Date());
  };
}

/**
 * Where the sandbox app is redirected to when no redirect URI was configured: our own callback page,
 * at PUBLIC_URL or the origin the gateway listens at (`https://localhost` on 443, no port).
 */
export function defaultRedirectUri(config: Config, listening: string): string {
  return `${config.publicUrl ?? listening}${config.basePath}/sandbox/callback`;
}

/** The sandbox app: the one SANDBOX_CLIENT_ID names, else the first one seeded (its id generated). */
export function findSandboxApp(
  db: StoreDb,
  config: Pick<Config, 'sandboxClientId'>,
): Promise<App | undefined> {
  return config.sandboxClientId === undefined ? findSeededApp(db) : findApp(db, config.sandboxClientId);
}

/**
 * The sandbox app, seeded on first start. Its redirect URI is written when SANDBOX_REDIRECT_URI names
 * one, or when the app is first seeded (this process's callback page); otherwise the stored one stays,
 * so that a second process on the same database (another port, a worker) never takes over the first
 * one's authorize calls.
 */
export async function ensureSandboxApp(
  db: StoreDb,
  config: Config,
  listening = `http://localhost:${config.port}`,
): Promise<App> {
  const configured = config.sandboxRedirectUri;
  const existing = await findSandboxApp(db, config);
  if (existing !== undefined) {
    if (configured === undefined || existing.redirectUri === configured) return existing;
    await updateRedirectUri(db, existing.clientId, configured);
    return { ...existing, redirectUri: configured };
  }
  const app: App = {
    clientId: config.sandboxClientId ?? newSandboxClientId(),
    name: 'Sandbox app',
    description: 'The app seeded for trying the sandbox',
    redirectUri: configured ?? defaultRedirectUri(config, listening),
    seeded: true,
  };
  await insertApp(db, app);
  return app;
}
