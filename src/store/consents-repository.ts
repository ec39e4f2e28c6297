// Consents: short-term consents of Swedish individual PSUs (PIS-scoped, a few reads) and account
// consents (AIS-scoped, valid until a date, a daily frequency of reads without the PSU).

import { and, eq, gt, type SQL, sql } from 'drizzle-orm';
import type { AuditActor } from '../domain/audit.ts';
import type { Consent } from '../domain/consents.ts';
import { auditedChange, recordEvents } from './audit/record.ts';
import { batchedRead } from './batched-read.ts';
import { type Db, rowsOf, type StoreDb } from './database.ts';
import { consents, consentUsage } from './schema.ts';

function toConsent(row: typeof consents.$inferSelect): Consent {
  return {
    consentId: row.consentId,
    clientId: row.clientId,
    kind: row.kind,
    access: row.access,
    status: row.status,
    psuId: row.psuId,
    validUntil: row.validUntil,
    readsLeft: row.readsLeft,
    createdAt: row.createdAt,
    frequencyPerDay: row.frequencyPerDay,
    requestedPsuId: row.requestedPsuId,
    terminatedAt: row.terminatedAt,
  };
}

/** Stores a new consent with its `consent.created` audit record; `db` is a transaction (or one statement's). */
export async function insertConsent(
  db: Db,
  consent: typeof consents.$inferInsert,
  actor?: AuditActor,
): Promise<void> {
  await db.insert(consents).values(consent);
  await recordEvents(db, [
    {
      ...actor,
      event: 'consent.created',
      outcome: consent.status ?? 'received',
      resource: consent.consentId,
      appId: consent.clientId,
      psuId: consent.psuId ?? consent.requestedPsuId ?? actor?.psuId ?? null,
      detail: { kind: consent.kind },
    },
  ]);
}

/**
 * A consent found expired (its validity passed; no status says so) recorded as `consent.expired`, once:
 * the first time the gateway refuses it for that (a unique index keeps a second record out).
 */
export async function recordConsentExpired(db: Db, consent: Consent, actor?: AuditActor): Promise<void> {
  await db.execute(sql`INSERT INTO audit_events (event, outcome, resource, tpp_id, app_id, certificate, psu_id,
      address, correlation_id, detail)
    VALUES ('consent.expired', 'expired', ${consent.consentId}, ${actor?.tppId ?? null}::text, ${consent.clientId},
      ${actor?.certificate ?? null}::text, ${consent.psuId}, ${actor?.address ?? null}::text,
      ${actor?.correlationId ?? null}::text,
      jsonb_build_object('validUntil', ${consent.validUntil?.toISOString() ?? null}::text))
    ON CONFLICT (resource) WHERE event = 'consent.expired' DO NOTHING`);
}

/**
 * The valid consents whose validity has passed by `now` become `expired`: the app's (`clientId`: a
 * sandbox app's clock moved past it) or every app's (undefined: the scheduler, on real time). A status
 * write, so the TPP's notification goes with it; audited as `consent.expired` once (a refusal may have
 * recorded it before). Answers how many expired.
 */
export async function expireConsents(db: Db, clientId: string | undefined, now: Date): Promise<number> {
  const result = await db.execute(sql`WITH changed AS (
      UPDATE consents SET status = 'expired'
       WHERE (${clientId ?? null}::text IS NULL OR client_id = ${clientId ?? null}::text) AND status = 'valid'
         AND valid_until <= ${now.toISOString()}::timestamptz
      RETURNING consent_id, client_id, psu_id, valid_until
    ), audited AS (
      INSERT INTO audit_events (event, outcome, resource, app_id, psu_id, detail)
      SELECT 'consent.expired', 'expired', consent_id, client_id, psu_id,
             jsonb_build_object('validUntil', to_char(valid_until AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))
        FROM changed
      ON CONFLICT (resource) WHERE event = 'consent.expired' DO NOTHING
    )
    SELECT count(*)::int AS expired FROM changed`);
  return rowsOf<{ expired: number }>(result)[0]?.expired ?? 0;
}

/** A consent's columns as the reads here name them, from the table under `alias`, each name after `prefix`. */
export function consentColumns(alias: string, prefix = ''): string {
  return [
    ['consent_id', 'consentId'],
    ['client_id', 'clientId'],
    ['kind', 'kind'],
    ['access', 'access'],
    ['status', 'status'],
    ['psu_id', 'psuId'],
    ['valid_until', 'validUntil'],
    ['reads_left', 'readsLeft'],
    ['created_at', 'createdAt'],
    ['frequency_per_day', 'frequencyPerDay'],
    ['requested_psu_id', 'requestedPsuId'],
    ['terminated_at', 'terminatedAt'],
  ]
    .map(([column, name]) => `${alias}.${column} AS "${prefix}${name}"`)
    .join(', ');
}

const consentsById = batchedRead<string, Consent>(
  'find_consents',
  `SELECT w.item::int AS item, ${consentColumns('c')}
     FROM unnest($1::text[]) WITH ORDINALITY AS w (id, item)
     JOIN consents c ON c.consent_id = w.id`,
  (ids) => [[...ids]],
);

/** A consent by its id (every account-information read: joined with concurrent lookups). */
export async function findConsent(db: StoreDb, consentId: string): Promise<Consent | undefined> {
  return (await consentsById(db, consentId))[0];
}

/** The PSU's approval: the consent becomes valid for that PSU; answers false when it was not awaiting it. */
export async function validateConsent(
  db: Db,
  consentId: string,
  psuId: string,
  validUntil: Date,
  actor?: AuditActor,
): Promise<boolean> {
  const changed = await auditedChange(
    db,
    sql`UPDATE consents SET status = 'valid', psu_id = ${psuId}, valid_until = ${validUntil.toISOString()}::timestamptz
         WHERE consent_id = ${consentId} AND status = 'received'
     RETURNING consent_id AS resource, client_id AS app_id, psu_id`,
    { event: 'consent.authorized', outcome: 'valid' },
    actor,
  );
  return changed === 1;
}

/** Uses one read of a valid, unexpired short-term consent; answers the consent after the read, or undefined. */
export async function useConsentRead(db: Db, consentId: string, now: Date): Promise<Consent | undefined> {
  const rows = await db
    .update(consents)
    .set({ readsLeft: sql`${consents.readsLeft} - 1` })
    .where(
      and(
        eq(consents.consentId, consentId),
        eq(consents.status, 'valid'),
        gt(consents.readsLeft, 0),
        gt(consents.validUntil, now),
      ),
    )
    .returning();
  return rows[0] === undefined ? undefined : toConsent(rows[0]);
}

/** The PSU revoked a valid consent at the bank: it grants nothing any more. */
export function revokeConsentByPsu(db: Db, consentId: string, now: Date, actor?: AuditActor): Promise<void> {
  return endConsent(db, consentId, now, 'revokedByPsu', sql`status = 'valid'`, actor);
}

/** The TPP ends a consent (DELETE): whatever its status, it grants nothing any more. */
export function terminateConsent(db: Db, consentId: string, now: Date, actor?: AuditActor): Promise<void> {
  return endConsent(db, consentId, now, 'terminatedByTpp', sql`status <> 'terminatedByTpp'`, actor);
}

/** A consent ended (`status`) when `from` holds, with its `consent.revoked` audit record, in one statement. */
async function endConsent(
  db: Db,
  consentId: string,
  now: Date,
  status: 'revokedByPsu' | 'terminatedByTpp',
  from: SQL,
  actor: AuditActor | undefined,
): Promise<void> {
  await auditedChange(
    db,
    sql`UPDATE consents SET status = ${status}, terminated_at = ${now.toISOString()}::timestamptz
         WHERE consent_id = ${consentId} AND ${from}
     RETURNING consent_id AS resource, client_id AS app_id, psu_id`,
    { event: 'consent.revoked', outcome: status, detail: { by: status === 'revokedByPsu' ? 'psu' : 'tpp' } },
    actor,
  );
}

/**
 * Counts one read without the PSU present of `resource` on `day`; answers false (and counts nothing)
 * when the day's `limit` is reached. Atomic across processes.
 */
export async function countConsentRead(
  db: Db,
  read: { consentId: string; day: string; resource: string; limit: number },
): Promise<boolean> {
  const rows = await db
    .insert(consentUsage)
    .values({ consentId: read.consentId, day: read.day, resource: read.resource, reads: 1 })
    .onConflictDoUpdate({
      target: [consentUsage.consentId, consentUsage.day, consentUsage.resource],
      set: { reads: sql`${consentUsage.reads} + 1` },
      setWhere: sql`${consentUsage.reads} < ${read.limit}`,
    })
    .returning({ reads: consentUsage.reads });
  return rows.length === 1;
}
