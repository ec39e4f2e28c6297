// Access tokens and authorization codes, stored only as SHA-256 hashes of the secrets.
import { and, eq, isNull } from 'drizzle-orm';
import type { Consent } from '../domain/consents.ts';
import { batchedRead } from './batched-read.ts';
import { consentColumns } from './consents-repository.ts';
import type { Db, StoreDb } from './database.ts';
import { accessTokens, authCodes, refreshTokens } from './schema.ts';

export type TokenRow = typeof accessTokens.$inferSelect;
export type CodeRow = typeof authCodes.$inferSelect;

export async function insertToken(db: Db, token: typeof accessTokens.$inferInsert): Promise<void> {
  await db.insert(accessTokens).values(token);
}

/** A token and, when its scope is an account consent's (AIS:<consentId>), that consent (null: no such consent). */
export type TokenWithConsent = TokenRow & { readonly consent: Consent | null | undefined };

const CONSENT_PREFIX = 'consent.';

const tokensByHash = batchedRead<string, TokenRow & Record<string, unknown>>(
  'find_tokens',
  `SELECT w.item::int AS item, t.token_hash AS "tokenHash", t.kind, t.client_id AS "clientId", t.scope,
          t.psu_id AS "psuId", t.code_hash AS "codeHash", t.expires_at AS "expiresAt", t.revoked_at AS "revokedAt",
          t.created_at AS "createdAt", t.cert_thumbprint AS "certThumbprint",
          ${consentColumns('c', CONSENT_PREFIX)}
     FROM unnest($1::text[]) WITH ORDINALITY AS w (hash, item)
     JOIN access_tokens t ON t.token_hash = w.hash
     LEFT JOIN consents c ON t.scope LIKE 'AIS:%' AND c.consent_id = substr(t.scope, 5)`,
  (hashes) => [[...hashes]],
);

/**
 * A token by its hash (every call with a bearer token: joined with concurrent lookups), with the
 * account consent its scope names read in the same statement (an account read needs both).
 */
export async function findToken(db: StoreDb, tokenHash: string): Promise<TokenWithConsent | undefined> {
  const [row] = await tokensByHash(db, tokenHash);
  if (row === undefined) return undefined;
  const token: Record<string, unknown> = {};
  const consent: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(row)) {
    if (name.startsWith(CONSENT_PREFIX)) consent[name.slice(CONSENT_PREFIX.length)] = value;
    else token[name] = value;
  }
  return {
    ...(token as TokenRow),
    consent: !row.scope.startsWith('AIS:')
      ? undefined
      : consent.consentId == null
        ? null
        : (consent as unknown as Consent),
  };
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
