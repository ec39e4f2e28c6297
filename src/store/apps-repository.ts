import { eq, sql } from 'drizzle-orm';
import type { Db } from './database.ts';
import { preparedFor } from './prepared.ts';
import { apps } from './schema.ts';

export interface App {
  readonly clientId: string;
  readonly name: string;
  readonly description: string;
  readonly redirectUri: string;
  readonly seeded: boolean;
}

function toApp(row: typeof apps.$inferSelect): App {
  return {
    clientId: row.clientId,
    name: row.name,
    description: row.description,
    redirectUri: row.redirectUri,
    seeded: row.seeded,
  };
}

const findAppQuery = preparedFor((db) =>
  db
    .select()
    .from(apps)
    .where(eq(apps.clientId, sql.placeholder('clientId')))
    .limit(1)
    .prepare('find_app'),
);

export async function findApp(db: Db, clientId: string): Promise<App | undefined> {
  const rows = await findAppQuery(db).execute({ clientId });
  return rows[0] === undefined ? undefined : toApp(rows[0]);
}

export async function findSeededApp(db: Db): Promise<App | undefined> {
  const rows = await db.select().from(apps).where(eq(apps.seeded, true)).orderBy(apps.createdAt).limit(1);
  return rows[0] === undefined ? undefined : toApp(rows[0]);
}

export async function insertApp(db: Db, app: App): Promise<void> {
  await db.insert(apps).values(app);
}

export async function updateRedirectUri(db: Db, clientId: string, redirectUri: string): Promise<void> {
  await db.update(apps).set({ redirectUri }).where(eq(apps.clientId, clientId));
}
