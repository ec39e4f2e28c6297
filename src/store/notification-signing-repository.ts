// The sandbox's notification signing key, kept in the database (migration 0038). The first process that
// needs one stores the key it generated; every later call, in any process, answers the stored one.
import { sql } from 'drizzle-orm';
import type { Db } from './database.ts';
import { notificationSigningKey } from './schema.ts';

/** The stored key (PKCS#8 PEM); `fresh` is stored first when there is none yet. */
export async function storedSigningKey(db: Db, fresh: string): Promise<string> {
  const [row] = await db
    .insert(notificationSigningKey)
    .values({ id: 1, privateKey: fresh })
    // A no-op update so that RETURNING answers the row that won, whoever inserted it.
    .onConflictDoUpdate({
      target: notificationSigningKey.id,
      set: { privateKey: sql`${notificationSigningKey.privateKey}` },
    })
    .returning({ privateKey: notificationSigningKey.privateKey });
  if (row === undefined) throw new Error('notification_signing_key: the upsert answered no row');
  return row.privateKey;
}
