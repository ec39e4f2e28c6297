// Recording audit events (issue 39) in the statement or transaction that makes the change: as rows of
// a JSON input that a data-modifying CTE inserts (auditInsertSql: coalesced single statements, no
// extra round trip), or as one multi-row INSERT inside an open transaction (recordEvents).
import { type SQL, sql } from 'drizzle-orm';
import type { AuditActor, AuditEvent } from '../../domain/audit.ts';
import { type Db, rowsOf } from '../database.ts';

/** An event as a row of a statement's JSON input. */
export interface AuditRow {
  readonly event: string;
  readonly outcome: string;
  readonly resource: string | null;
  readonly tppId: string | null;
  readonly appId: string | null;
  readonly certificate: string | null;
  readonly psuId: string | null;
  readonly address: string | null;
  readonly correlationId: string | null;
  readonly detail: Readonly<Record<string, unknown>> | null;
}

function auditRow(event: AuditEvent): AuditRow {
  return {
    event: event.event,
    outcome: event.outcome,
    resource: event.resource ?? null,
    tppId: event.tppId ?? null,
    appId: event.appId ?? null,
    certificate: event.certificate ?? null,
    psuId: event.psuId ?? null,
    address: event.address ?? null,
    correlationId: event.correlationId ?? null,
    detail: event.detail ?? null,
  };
}

/** The actor's fields as a row of a statement's JSON input carries them (auditInsertSql's `actor`). */
export function actorColumns(actor: AuditActor | undefined): Record<string, string | null> {
  return {
    auditTpp: actor?.tppId ?? null,
    auditApp: actor?.appId ?? null,
    auditCertificate: actor?.certificate ?? null,
    auditPsu: actor?.psuId ?? null,
    auditAddress: actor?.address ?? null,
    auditCorrelation: actor?.correlationId ?? null,
  };
}

/** The jsonb_to_recordset column list of actorColumns' fields, to add to a statement's input. */
export const ACTOR_INPUT_COLUMNS = `"auditTpp" text, "auditApp" text, "auditCertificate" text, "auditPsu" text,
  "auditAddress" text, "auditCorrelation" text`;

const COLUMNS =
  'event, outcome, resource, tpp_id, app_id, certificate, psu_id, address, correlation_id, detail';

/**
 * An INSERT of one event per row of `from` (an SQL FROM clause), for a data-modifying CTE: `event`,
 * `outcome`, `resource` and `detail` are SQL expressions over it; the actor comes from the input's
 * actorColumns (`input` names the alias that has them), with `psu` and `app` as SQL expressions where
 * the row knows them better.
 */
export function auditInsertSql(
  from: string,
  input: string,
  values: {
    readonly event: string;
    readonly outcome: string;
    readonly resource: string;
    readonly psu?: string;
    readonly app?: string;
    readonly detail?: string;
  },
): string {
  return `INSERT INTO audit_events (${COLUMNS})
    SELECT ${values.event}, ${values.outcome}, ${values.resource}, ${input}."auditTpp",
           ${values.app ?? `${input}."auditApp"`}, ${input}."auditCertificate",
           ${values.psu ?? `${input}."auditPsu"`}, ${input}."auditAddress", ${input}."auditCorrelation",
           ${values.detail ?? 'NULL::jsonb'}
      FROM ${from}`;
}

/** Records the events in one statement, on `db` or inside the transaction `db` is. */
export async function recordEvents(db: Db, events: readonly AuditEvent[]): Promise<void> {
  if (events.length === 0) return;
  await db.execute(sql`INSERT INTO audit_events (${sql.raw(COLUMNS)})
    SELECT event, outcome, resource, "tppId", "appId", certificate, "psuId", address, "correlationId", detail
      FROM jsonb_to_recordset(${JSON.stringify(events.map(auditRow))}::jsonb)
        AS t(event text, outcome text, resource text, "tppId" text, "appId" text, certificate text,
             "psuId" text, address text, "correlationId" text, detail jsonb)`);
}

/**
 * A change and its audit records in one statement: `change` is an UPDATE, INSERT or DELETE whose
 * RETURNING gives `resource`, `app_id` and `psu_id` for each row it changed; each such row gets the
 * event, with `actor`'s other fields. Answers how many rows changed (and were recorded).
 */
export async function auditedChange(
  db: Db,
  change: SQL,
  event: Pick<AuditEvent, 'event' | 'outcome' | 'detail'>,
  actor: AuditActor | undefined,
): Promise<number> {
  const result = await db.execute(sql`WITH changed AS (${change})
    INSERT INTO audit_events (${sql.raw(COLUMNS)})
    SELECT ${event.event}, ${event.outcome}, c.resource, ${actor?.tppId ?? null}::text,
           COALESCE(c.app_id, ${actor?.appId ?? null}::text), ${actor?.certificate ?? null}::text,
           COALESCE(c.psu_id, ${actor?.psuId ?? null}::text), ${actor?.address ?? null}::text,
           ${actor?.correlationId ?? null}::text, ${event.detail === undefined || event.detail === null ? null : JSON.stringify(event.detail)}::jsonb
      FROM changed c
    RETURNING seq`);
  return rowsOf(result).length;
}
