// The answers to state-changing requests, by app and TPP-Request-ID.
import { type Db, runStatement, type StoreDb } from './database.ts';
import { idempotencyKeys } from './schema.ts';

export interface RequestKey {
  readonly clientId: string;
  readonly requestId: string;
}

/** An answer to record under a request id. */
export interface RecordedAnswer {
  readonly key: RequestKey;
  readonly fingerprint: string;
  readonly statusCode: number;
  readonly body: unknown;
}

/** An answer's request id as one key: its app and its TPP-Request-ID. */
export const requestKeyOf = ({ answer }: { readonly answer: RecordedAnswer }): string =>
  `${answer.key.clientId} ${answer.key.requestId}`;

/**
 * Items that claim request ids, in the order of their keys: two statements claiming the same ids lock
 * them in the same order (and so never deadlock).
 */
export function inClaimOrder<T extends { readonly answer: RecordedAnswer }>(items: readonly T[]): T[] {
  return items
    .map((item) => ({ key: requestKeyOf(item), item }))
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
    .map(({ item }) => item);
}

export interface StoredAnswer {
  readonly fingerprint: string;
  readonly statusCode: number;
  readonly body: unknown;
}

/**
 * Records the answer to a request, in the transaction that did its work. Answers false when the id
 * is taken. On PostgreSQL a concurrent record of the same id waits here until the first
 * transaction ends, then finds the id taken (or free again, after a rollback).
 */
export async function recordAnswer(
  db: Db,
  key: RequestKey,
  fingerprint: string,
  statusCode: number,
  body: unknown,
): Promise<boolean> {
  const rows = await db
    .insert(idempotencyKeys)
    .values({ clientId: key.clientId, requestId: key.requestId, fingerprint, statusCode, body })
    .onConflictDoNothing()
    .returning({ requestId: idempotencyKeys.requestId });
  return rows.length === 1;
}

export async function findAnswer(db: StoreDb, key: RequestKey): Promise<StoredAnswer | undefined> {
  const rows = await runStatement<StoredAnswer>(
    db,
    'find_answer',
    `SELECT fingerprint, status_code AS "statusCode", body
       FROM idempotency_keys WHERE client_id = $1 AND request_id = $2`,
    [key.clientId, key.requestId],
  );
  return rows[0];
}
