// What the PSU's permission dashboard reads and locks: the PSU's consents with the TPP's app and their
// use, the PSU's future-dated payments waiting for their date. Every query is bounded by the PSU: no
// row of another PSU is read, whatever id is asked for.
import { and, asc, eq, gt, sql } from 'drizzle-orm';
import type { Consent } from '../domain/consents.ts';
import type { Db } from './database.ts';
import { apps, consents, consentUsage, payments } from './schema.ts';

export interface PsuConsentRow {
  readonly consentId: string;
  readonly kind: Consent['kind'];
  readonly appName: string;
  readonly validUntil: Date;
  readonly readsLeft: number | null;
  readonly frequencyPerDay: number | null;
  /** The last day with a read without the PSU present (consent_usage), or null. */
  readonly lastAccessDay: string | null;
  /** Reads without the PSU present today. */
  readonly readsToday: number;
}

/** The PSU's consents that grant access now (valid, not past their end), oldest first. */
export async function psuConsents(db: Db, psuId: string, now: Date, today: string): Promise<PsuConsentRow[]> {
  const rows = await db
    .select({
      consentId: consents.consentId,
      kind: consents.kind,
      appName: apps.name,
      validUntil: consents.validUntil,
      readsLeft: consents.readsLeft,
      frequencyPerDay: consents.frequencyPerDay,
      lastAccessDay: sql<
        string | null
      >`(SELECT max(u.day)::text FROM ${consentUsage} u WHERE u.consent_id = ${consents.consentId})`,
      readsToday: sql<number>`(SELECT coalesce(sum(u.reads), 0)::int FROM ${consentUsage} u
        WHERE u.consent_id = ${consents.consentId} AND u.day = ${today}::date)`,
    })
    .from(consents)
    .innerJoin(apps, eq(apps.clientId, consents.clientId))
    .where(and(eq(consents.psuId, psuId), eq(consents.status, 'valid'), gt(consents.validUntil, now)))
    .orderBy(asc(consents.createdAt), asc(consents.consentId));
  return rows.map((row) => ({ ...row, validUntil: row.validUntil!, readsToday: Number(row.readsToday) }));
}

/** The PSU's consent, locked until the transaction ends; undefined for another PSU's or an unknown one. */
export async function lockPsuConsent(
  trx: Db,
  psuId: string,
  consentId: string,
): Promise<Pick<Consent, 'consentId' | 'status'> | undefined> {
  const rows = await trx
    .select({ consentId: consents.consentId, status: consents.status })
    .from(consents)
    .where(and(eq(consents.consentId, consentId), eq(consents.psuId, psuId)))
    .for('update');
  return rows[0];
}

export interface PsuScheduledPaymentRow {
  readonly paymentId: string;
  readonly appName: string;
  readonly amountMinor: number;
  readonly currency: string;
  readonly creditorName: string | null;
  readonly creditorAccount: string;
  readonly executionDate: string;
}

/** The PSU's payments executed with a later date and waiting for it (ACCP after `today`), soonest first. */
export async function psuScheduledPayments(
  db: Db,
  psuId: string,
  today: string,
): Promise<PsuScheduledPaymentRow[]> {
  const rows = await db
    .select({
      paymentId: payments.paymentId,
      appName: apps.name,
      amountMinor: payments.amountMinor,
      currency: payments.currency,
      creditorName: payments.creditorName,
      creditorAccount: payments.creditorAccount,
      executionDate: payments.requestedExecutionDate,
    })
    .from(payments)
    .innerJoin(apps, eq(apps.clientId, payments.clientId))
    .where(
      and(eq(payments.psuId, psuId), eq(payments.status, 'ACCP'), gt(payments.requestedExecutionDate, today)),
    )
    .orderBy(asc(payments.requestedExecutionDate), asc(payments.paymentId));
  return rows.map((row) => ({ ...row, executionDate: row.executionDate! }));
}
