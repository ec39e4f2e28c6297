// Enrolled TPPs, their certificates and their apps' subscriptions.
import { and, eq, isNull } from 'drizzle-orm';
import type { AuditActor } from '../domain/audit.ts';
import { recordEvents } from './audit/record.ts';
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

/**
 * Adds a certificate to its TPP's set; answers false, adding nothing, when the bank removed that
 * certificate before (a removed certificate is not taken back by enrolling or adding it again).
 */
export async function addCertificate(
  db: Db,
  certificate: typeof tppCertificates.$inferInsert,
): Promise<boolean> {
  const added = await db
    .insert(tppCertificates)
    .values(certificate)
    .onConflictDoNothing()
    .returning({ thumbprint: tppCertificates.thumbprint });
  if (added.length === 1) return true;
  const rows = await db
    .select({ removedAt: tppCertificates.removedAt })
    .from(tppCertificates)
    .where(eq(tppCertificates.thumbprint, certificate.thumbprint))
    .limit(1);
  return rows[0]?.removedAt === null;
}

/** A certificate of a TPP's set: registered (enrolled or added with PUT) and not removed. */
export async function findCertificate(db: Db, thumbprint: string): Promise<CertificateRow | undefined> {
  const rows = await db
    .select()
    .from(tppCertificates)
    .where(and(eq(tppCertificates.thumbprint, thumbprint), isNull(tppCertificates.removedAt)))
    .limit(1);
  return rows[0];
}

/**
 * Removes a certificate from its TPP's set (the bank's decision, e.g. a compromised key); answers the
 * TPP it belonged to, or undefined when no certificate of that thumbprint is in a set.
 */
/**
 * Takes a certificate out of its TPP's set, with its `certificate.removed` audit record in the same
 * transaction (the TPP it belonged to, the operator's actor): answers that TPP, or undefined when no
 * TPP holds the certificate (nothing changed, nothing recorded).
 */
export function removeCertificate(
  db: Db,
  thumbprint: string,
  at: Date,
  actor: AuditActor & { readonly detail?: Readonly<Record<string, unknown>> } = {},
): Promise<string | undefined> {
  return db.transaction(async (trx) => {
    const [removed] = await trx
      .update(tppCertificates)
      .set({ removedAt: at })
      .where(and(eq(tppCertificates.thumbprint, thumbprint), isNull(tppCertificates.removedAt)))
      .returning({ tppId: tppCertificates.tppId });
    if (removed === undefined) return undefined;
    const { detail, ...who } = actor;
    await recordEvents(trx, [
      {
        ...who,
        tppId: removed.tppId,
        event: 'certificate.removed',
        outcome: 'ok',
        resource: thumbprint,
        detail: detail ?? null,
      },
    ]);
    return removed.tppId;
  });
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
