// The audit trail's records as tests read them (issue 39): straight from audit_events, in seq order (the
// number's, not its text's: the select list names seq as text).
import { sql } from 'drizzle-orm';
import { auditKey } from '../../src/store/audit/trail.ts';
import { type Backend, type Gateway, queryRows, startGateway } from './gateway.ts';

export interface AuditRecordRow {
  seq: string;
  event: string;
  outcome: string;
  resource: string | null;
  tppId: string | null;
  appId: string | null;
  /** The SHA-256 thumbprint (hex) of the TLS client certificate. */
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
    sql`SELECT seq::text AS seq, event, outcome, resource, tpp_id AS "tppId", app_id AS "appId", certificate,
          psu_id AS "psuId", address, correlation_id AS "correlationId", detail
        FROM audit_events
        WHERE seq > ${where.after ?? '0'}::bigint
          AND (${where.resource ?? null}::text IS NULL OR resource = ${where.resource ?? null}::text)
        ORDER BY audit_events.seq`,
  );
}

/** A gateway that seals its audit trail only when a test says so (no sealer), and the trail's key. */
export async function startUnsealedGateway(backend: Backend): Promise<{ gateway: Gateway; key: Buffer }> {
  const gateway = await startGateway({ backend, config: { auditSealIntervalMs: 0 } });
  return { gateway, key: await auditKey(gateway.store.db, undefined) };
}

/** The records written after the seq `after`, in order, without their seq. */
export async function auditRecordsSince(
  gateway: Gateway,
  after: string,
): Promise<Omit<AuditRecordRow, 'seq'>[]> {
  return (await auditRecords(gateway, { after })).map(({ seq: _, ...row }) => row);
}

/** The last seq handed to a record (0 before any), to read what follows with auditRecordsSince. */
export async function lastAuditSeq(gateway: Gateway): Promise<string> {
  const [row] = await queryRows<{ seq: string }>(
    gateway.store,
    sql`SELECT COALESCE(max(seq), 0)::text AS seq FROM audit_events`,
  );
  return row!.seq;
}
