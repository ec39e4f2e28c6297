// Access tokens and authorization codes, stored only as SHA-256 hashes of the secrets.
import { and, eq, isNull } from 'drizzle-orm';
import { batchedRead } from './batched-read.ts';
import type { Db, StoreDb } from './database.ts';
import { accessTokens, authCodes, refreshTokens } from './schema.ts';

export type TokenRow = typeof accessTokens.$inferSelect;
export type CodeRow = typeof authCodes.$inferSelect;

export async function insertToken(db: Db, token: typeof accessTokens.$inferInsert): Promise<void> {
  await db.insert(accessTokens).values(token);
}

const tokensByHash = batchedRead<string, TokenRow>(
  'find_tokens',
  `SELECT w.item::int AS item, t.token_hash AS "tokenHash", t.kind, t.client_id AS "clientId", t.scope,
          t.psu_id AS "psuId", t.code_hash AS "codeHash", t.expires_at AS "expiresAt", t.revoked_at AS "revokedAt",
          t.created_at AS "createdAt", t.cert_thumbprint AS "certThumbprint"
     FROM unnest($1::text[]) WITH ORDINALITY AS w (hash, item)
     JOIN access_tokens t ON t.token_hash = w.hash`,
  (hashes) => [[...hashes]],
);

/** A token by its hash (every call with a bearer token: joined with concurrent lookups). */
export async function findToken(db: StoreDb, tokenHash: string): Promise<TokenRow | undefined> {
  return (await tokensByHash(db, tokenHash))[0];
}

/** Revokes the token issued for a code (a replayed code revokes what it issued). */
export async function revokeTokenOfCode(db: Db, codeHash: string, at: Date): Promise<void> {
  await db
    .update(accessTokens)
    .set({ revokedAt: at })
    .where(and(eq(accessTokens.codeHash, codeHash), isNull(accessTokens.revokedAt)));
}

export async function insertCode(db: Db, code: typeof authCodes.$inferInsert): Promise<void> {
  await db.insert(authCodes).values(code);
}

/** Marks a code used; answers the code only when this call was the one that used it. */
export async function consumeCode(db: Db, codeHash: string, at: Date): Promise<CodeRow | undefined> {
  const rows = await db
    .update(authCodes)
    .set({ usedAt: at })
    .where(and(eq(authCodes.codeHash, codeHash), isNull(authCodes.usedAt)))
    .returning();
  return rows[0];
}

export async function findCode(db: Db, codeHash: string): Promise<CodeRow | undefined> {
  const rows = await db.select().from(authCodes).where(eq(authCodes.codeHash, codeHash)).limit(1);
  return rows[0];
}

export type RefreshRow = typeof refreshTokens.$inferSelect;

export async function insertRefreshToken(db: Db, token: typeof refreshTokens.$inferInsert): Promise<void> {
  await db.insert(refreshTokens).values(token);
}

export async function findRefreshToken(db: Db, tokenHash: string): Promise<RefreshRow | undefined> {
  const rows = await db.select().from(refreshTokens).where(eq(refreshTokens.tokenHash, tokenHash)).limit(1);
  return rows[0];
}
