import { eq } from 'drizzle-orm';
import type { App } from '../domain/apps.ts';
import { type Db, runStatement, type StoreDb } from './database.ts';
import { apps } from './schema.ts';

function toApp(row: typeof apps.$inferSelect): App {
  return {
    clientId: row.clientId,
    name: row.name,
    description: row.description,
    redirectUri: row.redirectUri,
    seeded: row.seeded,
    tppId: row.tppId,
    notificationHosts: row.notificationHosts,
  };
}

export async function findApp(db: StoreDb, clientId: string): Promise<App | undefined> {
  const rows = await runStatement<App>(
    db,
    'find_app',
    `SELECT client_id AS "clientId", name, description, redirect_uri AS "redirectUri", seeded, tpp_id AS "tppId",
            notification_hosts AS "notificationHosts"
       FROM apps WHERE client_id = $1`,
    [clientId],
  );
  return rows[0];
}

export async function findSeededApp(db: Db): Promise<App | undefined> {
  const rows = await db.select().from(apps).where(eq(apps.seeded, true)).orderBy(apps.createdAt).limit(1);
  return rows[0] === undefined ? undefined : toApp(rows[0]);
}

export async function insertApp(db: Db, app: App): Promise<void> {
  await db.insert(apps).values({ ...app, notificationHosts: [...(app.notificationHosts ?? [])] });
}

export async function updateRedirectUri(db: Db, clientId: string, redirectUri: string): Promise<void> {
  await db.update(apps).set({ redirectUri }).where(eq(apps.clientId, clientId));
}
