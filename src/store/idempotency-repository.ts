// The answers to state-changing requests, by app and TPP-Request-ID.
import { and, eq, sql } from 'drizzle-orm';
import type { Db } from './database.ts';
import { preparedFor } from './prepared.ts';
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
    .values({ ...key, fingerprint, statusCode, body })
    .onConflictDoNothing()
    .returning({ requestId: idempotencyKeys.requestId });
  return rows.length === 1;
}

const findAnswerQuery = preparedFor((db) =>
  db
    .select({
      fingerprint: idempotencyKeys.fingerprint,
      statusCode: idempotencyKeys.statusCode,
      body: idempotencyKeys.body,
    })
    .from(idempotencyKeys)
    .where(
      and(
        eq(idempotencyKeys.clientId, sql.placeholder('clientId')),
        eq(idempotencyKeys.requestId, sql.placeholder('requestId')),
      ),
    )
    .limit(1)
    .prepare('find_answer'),
);

export async function findAnswer(db: Db, key: RequestKey): Promise<StoredAnswer | undefined> {
  const rows = await findAnswerQuery(db).execute({ clientId: key.clientId, requestId: key.requestId });
  return rows[0];
}
