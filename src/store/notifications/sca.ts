// The SCA notifications that the statements issuing and exchanging codes write themselves (issue 41;
// every other step's are written by the trigger on its audit record, store/definitions).
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
