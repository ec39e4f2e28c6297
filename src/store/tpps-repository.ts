// Enrolled TPPs, their certificates and their apps' subscriptions.
import { and, eq } from 'drizzle-orm';
import type { Db } from './database.ts';
import { subscriptions, tppCertificates, tpps } from './schema.ts';

export type TppRow = typeof tpps.$inferSelect;
export type CertificateRow = typeof tppCertificates.$inferSelect;

export async function findTppByOrganization(
  db: Db,
  organizationIdentifier: string,
): Promise<TppRow | undefined> {
  const rows = await db
    .select()
    .from(tpps)
    .where(eq(tpps.organizationIdentifier, organizationIdentifier))
    .limit(1);
  return rows[0];
}

export async function findTpp(db: Db, tppId: string): Promise<TppRow | undefined> {
  const rows = await db.select().from(tpps).where(eq(tpps.tppId, tppId)).limit(1);
  return rows[0];
}

/** Enrolls a TPP unless its organization is enrolled; answers the TPP and whether it is new. */
export async function enrollTpp(db: Db, tpp: TppRow): Promise<{ tpp: TppRow; created: boolean }> {
  const rows = await db.insert(tpps).values(tpp).onConflictDoNothing().returning();
  if (rows[0] !== undefined) return { tpp: rows[0], created: true };
  return { tpp: (await findTppByOrganization(db, tpp.organizationIdentifier))!, created: false };
}

export async function addCertificate(db: Db, certificate: CertificateRow): Promise<void> {
  await db.insert(tppCertificates).values(certificate).onConflictDoNothing();
}

export async function findCertificate(db: Db, thumbprint: string): Promise<CertificateRow | undefined> {
  const rows = await db
    .select()
    .from(tppCertificates)
    .where(eq(tppCertificates.thumbprint, thumbprint))
    .limit(1);
  return rows[0];
}

export async function listSubscriptions(db: Db, clientId: string): Promise<string[]> {
  const rows = await db
    .select({ productName: subscriptions.productName })
    .from(subscriptions)
    .where(eq(subscriptions.clientId, clientId));
  return rows.map((row) => row.productName);
}

/** Adds a subscription; answers false when the app already has that product. */
export async function addSubscription(
  db: Db,
  subscription: typeof subscriptions.$inferInsert,
): Promise<boolean> {
  const rows = await db
    .insert(subscriptions)
    .values(subscription)
    .onConflictDoNothing()
    .returning({ id: subscriptions.subscriptionId });
  return rows.length === 1;
}

export async function hasSubscription(db: Db, clientId: string, productName: string): Promise<boolean> {
  const rows = await db
    .select({ id: subscriptions.subscriptionId })
    .from(subscriptions)
    .where(and(eq(subscriptions.clientId, clientId), eq(subscriptions.productName, productName)))
    .limit(1);
  return rows.length === 1;
}
