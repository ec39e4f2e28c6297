// The answers to state-changing requests, by app and TPP-Request-ID.
import { and, eq } from 'drizzle-orm';
import type { Db } from './database.ts';
import { idempotencyKeys } from './schema.ts';

export interface RequestKey {
  readonly clientId: string;
  readonly requestId: string;
}

export interface StoredAnswer {
  readonly fingerprint: string;
  readonly statusCode: number | null;
  readonly body: unknown;
}

/**
 * Claims a request id for this transaction. On PostgreSQL a concurrent claim of the same id waits
 * here until the first transaction ends; it then finds the id taken (or free again, after a rollback).
 */
export async function claimRequest(db: Db, key: RequestKey, fingerprint: string): Promise<boolean> {
  const rows = await db
    .insert(idempotencyKeys)
    .values({ ...key, fingerprint })
    .onConflictDoNothing()
    .returning({ requestId: idempotencyKeys.requestId });
  return rows.length === 1;
}

export async function findAnswer(db: Db, key: RequestKey): Promise<StoredAnswer | undefined> {
  const rows = await db
    .select({
      fingerprint: idempotencyKeys.fingerprint,
      statusCode: idempotencyKeys.statusCode,
      body: idempotencyKeys.body,
    })
    .from(idempotencyKeys)
    .where(and(eq(idempotencyKeys.clientId, key.clientId), eq(idempotencyKeys.requestId, key.requestId)))
    .limit(1);
  return rows[0];
}

export async function saveAnswer(db: Db, key: RequestKey, statusCode: number, body: unknown): Promise<void> {
  await db
    .update(idempotencyKeys)
    .set({ statusCode, body })
    .where(and(eq(idempotencyKeys.clientId, key.clientId), eq(idempotencyKeys.requestId, key.requestId)));
}
