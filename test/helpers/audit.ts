// The audit trail's records as tests read them (issue 39): straight from audit_events, in seq order (the
// number's, not its text's: the select list names seq as text).
import { sql } from 'drizzle-orm';
import { type Gateway, queryRows } from './gateway.ts';

export interface AuditRecordRow {
  seq: string;
  event: string;
  outcome: string;
  resource: string | null;
  tppId: string | null;
  appId: string | null;
  certificate: string | null;
  psuId: string | null;
  address: string | null;
  correlationId: string | null;
  detail: Record<string, unknown> | null;
}

/** The records after the seq `after` (all without), of one resource (any without), by seq. */
export function auditRecords(
  gateway: Gateway,
  where: { readonly after?: string; readonly resource?: string } = {},
): Promise<AuditRecordRow[]> {
  return queryRows<AuditRecordRow>(
    gateway.store,
    sql`SELECT seq::text AS seq, event, outcome, resource, tpp_id AS "tppId", app_id AS "appId",
          certificate, psu_id AS "psuId", address, correlation_id AS "correlationId", detail
        FROM audit_events
        WHERE seq > ${where.after ?? '0'}::bigint
          AND (${where.resource ?? null}::text IS NULL OR resource = ${where.resource ?? null}::text)
        ORDER BY audit_events.seq`,
  );
}
