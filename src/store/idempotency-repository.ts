// Idempotency-Key records (migration 0030), by app, operation and key: a claim while the first request
// with the key is in flight, then the answer it gave, written with its work.
import { and, eq } from 'drizzle-orm';
import { type Db, runStatement, type StoreDb } from './database.ts';
import { idempotencyKeys } from './schema.ts';

/** Whose key it is and for what: an app (onboarding: a TPP), an operation, the Idempotency-Key. */
export interface KeyScope {
  readonly clientId: string;
  readonly operation: string;
  readonly key: string;
}

/** A key this request holds: its scope and the claimant's token. */
export interface KeyClaim extends KeyScope {
  readonly token: string;
}

/** The answer to record under a claim, by the statement or transaction that does the work. */
export interface RecordedAnswer {
  readonly claim: KeyClaim;
  readonly statusCode: number;
  readonly body: unknown;
}

/** What is recorded under a key: a request in flight, or the answer of one that was done. */
export type KeyRecord =
  | { readonly fingerprint: string; readonly inFlight: true }
  | {
      readonly fingerprint: string;
      readonly inFlight: false;
      readonly statusCode: number;
      readonly body: unknown;
    };

/** How many keys past their time one claim deletes: the purge keeps pace with the keys made, no more. */
const PURGED_PER_CLAIM = 10;

/**
 * Claims a key for a request: answers true when the key was free (never used, used more than `keptSince`
 * ago, or held by a claimant whose lease ended before `now`), the claim then committed before the work
 * starts, so that a concurrent request with the key, in any process, finds it in flight. Deletes a few
 * keys older than `keptSince` on the way.
 */
export async function claimKey(
  db: StoreDb,
  claim: KeyClaim,
  fingerprint: string,
  times: { readonly now: Date; readonly leaseUntil: Date; readonly keptSince: Date },
): Promise<boolean> {
  const rows = await runStatement<{ claimed: number }>(
    db,
    'claim_idempotency_key',
    `WITH purged AS (
       DELETE FROM idempotency_claims
        WHERE ctid = ANY (ARRAY(
          SELECT ctid FROM idempotency_claims
           WHERE created_at < $7 AND NOT (client_id = $1 AND operation = $2 AND idempotency_key = $3)
           ORDER BY created_at LIMIT ${PURGED_PER_CLAIM}))
     )
     INSERT INTO idempotency_claims AS k
            (client_id, operation, idempotency_key, fingerprint, claim, lease_until, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $8)
     ON CONFLICT (client_id, operation, idempotency_key) DO UPDATE
        SET fingerprint = excluded.fingerprint, claim = excluded.claim, lease_until = excluded.lease_until,
            status_code = NULL, body = NULL, created_at = excluded.created_at
      WHERE (k.claim IS NOT NULL AND k.lease_until < excluded.created_at) OR k.created_at < $7
     RETURNING 1 AS claimed`,
    [
      claim.clientId,
      claim.operation,
      claim.key,
      fingerprint,
      claim.token,
      times.leaseUntil.toISOString(),
      times.keptSince.toISOString(),
      times.now.toISOString(),
    ],
  );
  return rows.length === 1;
}

/** What the key holds, if anything. */
export async function findKey(db: StoreDb, scope: KeyScope): Promise<KeyRecord | undefined> {
  const rows = await runStatement<{ fingerprint: string; statusCode: number | null; body: unknown }>(
    db,
    'find_idempotency_key',
    `SELECT fingerprint, status_code AS "statusCode", body
       FROM idempotency_claims WHERE client_id = $1 AND operation = $2 AND idempotency_key = $3`,
    [scope.clientId, scope.operation, scope.key],
  );
  const row = rows[0];
  if (row === undefined) return undefined;
  return row.statusCode === null
    ? { fingerprint: row.fingerprint, inFlight: true }
    : { fingerprint: row.fingerprint, inFlight: false, statusCode: row.statusCode, body: row.body };
}

/**
 * Records the answer under the claim, in the transaction that did its work. Answers false when the claim
 * is no longer this request's (its lease ended and another request took the key): the caller rolls back.
 */
export async function recordAnswer(db: Db, answer: RecordedAnswer): Promise<boolean> {
  const rows = await db
    .update(idempotencyKeys)
    .set({ statusCode: answer.statusCode, body: answer.body, claim: null, leaseUntil: null })
    .where(and(...claimed(answer.claim)))
    .returning({ key: idempotencyKeys.idempotencyKey });
  return rows.length === 1;
}

/** Gives a key up after its request failed: a retry with it is done as a new request. */
export async function releaseClaim(db: StoreDb, claim: KeyClaim): Promise<void> {
  await db.delete(idempotencyKeys).where(and(...claimed(claim)));
}

function claimed(claim: KeyClaim) {
  return [
    eq(idempotencyKeys.clientId, claim.clientId),
    eq(idempotencyKeys.operation, claim.operation),
    eq(idempotencyKeys.idempotencyKey, claim.key),
    eq(idempotencyKeys.claim, claim.token),
  ];
}

/** The columns of an answer as the statements that record one with their work take it (JSON input). */
export function answerColumns(answer: RecordedAnswer | undefined) {
  // Without an answer no member at all: the JSON of the hot path (no key) stays as short as it was.
  return answer === undefined
    ? {}
    : {
        claimClient: answer.claim.clientId,
        operation: answer.claim.operation,
        key: answer.claim.key,
        claim: answer.claim.token,
        statusCode: answer.statusCode,
        body: answer.body,
      };
}

/**
 * The CTE that records the answers of `input` (a relation with answerColumns' columns) under their
 * claims, returning the claims recorded (`claim`). Rows without a claim record nothing.
 */
export function recordAnswersSql(input: string): string {
  return `UPDATE idempotency_claims k
        SET status_code = a."statusCode", body = a.body, claim = NULL, lease_until = NULL
       FROM ${input} a
      WHERE a.claim IS NOT NULL AND k.client_id = a."claimClient" AND k.operation = a.operation
        AND k.idempotency_key = a.key AND k.claim = a.claim
      RETURNING a.claim`;
}
