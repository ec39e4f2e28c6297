// The SCA notifications (issue 41): those the statements issuing and exchanging codes write themselves,
// and those of the rarer steps (the decoupled approval, a denial, a cancellation), written by the
// transaction that records the step.
import { sql } from 'drizzle-orm';
import type { Db } from '../database.ts';

/**
 * The SCA notification of a step other than a code's, for the resource `scope` names when it subscribed
 * (store/definitions/authorization_notified.sql); in `db`, the transaction that records the step.
 */
export async function notifyScaStep(db: Db, scope: string, status: 'finalised' | 'failed'): Promise<void> {
  await db.execute(sql`SELECT authorization_notified(${scope}, ${status})`);
}

/**
 * The SCA notifications (issue 41) of the codes of `from` whose resource subscribed to them, as the CTE
 * `notified`, which the statement's main query must read for it to run: `started` when a code is
 * issued, `finalised` when it is exchanged. sca_targets (store/definitions) is inlined: a resource nobody
 * subscribed costs a probe by key.
 */
export function scaNotified(from: string, scope: string, sca: 'started' | 'finalised'): string {
  return `notified AS (
       SELECT notify_tpp(t.client_id, t.resource_type, t.resource_id, t.uri, '${sca}', NULL, NULL, 'SCA', t.href)
         FROM ${from} CROSS JOIN LATERAL sca_targets(${scope}) t
     )`;
}
