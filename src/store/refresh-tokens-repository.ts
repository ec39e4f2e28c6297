// Refresh tokens, stored only as SHA-256 hashes of the secrets, each with the TPP of the certificate it
// is bound to. Those the code exchange issues are written by its own statement (tokens-repository.ts).
import { and, eq, gte, isNull } from 'drizzle-orm';
import type { AuditActor } from '../domain/audit.ts';
import { recordEvents } from './audit/record.ts';
import type { Db } from './database.ts';
import { accessTokens, refreshTokens, tppCertificates } from './schema.ts';

export type NewRefreshToken = typeof refreshTokens.$inferInsert;

/** A refresh token and the TPP of the certificate it is bound to (null: unbound). */
export type RefreshRow = typeof refreshTokens.$inferSelect & { readonly certTppId: string | null };

export async function insertRefreshToken(db: Db, token: NewRefreshToken): Promise<void> {
  await db.insert(refreshTokens).values(token);
}

export async function findRefreshToken(db: Db, tokenHash: string): Promise<RefreshRow | undefined> {
  const rows = await db
    .select({ token: refreshTokens, certTppId: tppCertificates.tppId })
    .from(refreshTokens)
    .leftJoin(tppCertificates, eq(tppCertificates.thumbprint, refreshTokens.certThumbprint))
    .where(eq(refreshTokens.tokenHash, tokenHash))
    .limit(1);
  const row = rows[0];
  return row === undefined ? undefined : { ...row.token, certTppId: row.certTppId };
}

/**
 * What a replayed code's refresh token led to, revoked with a `token.revoked` record each (in `db`'s
 * transaction): the refresh tokens of the code's app, scope and PSU issued since the code was made, and
 * the access tokens the refresh grant issued for them. A refresh token keeps no code: those of a later
 * authorization of the same resource go too, as suspect as the code's own once the code was stolen.
 */
export async function revokeRefreshTokensOfCode(
  db: Db,
  code: {
    readonly clientId: string;
    readonly scope: string;
    readonly psuId: string;
    readonly createdAt: Date;
  },
  at: Date,
  actor?: AuditActor,
): Promise<void> {
  const refreshed = await db
    .update(refreshTokens)
    .set({ revokedAt: at })
    .where(
      and(
        eq(refreshTokens.clientId, code.clientId),
        eq(refreshTokens.scope, code.scope),
        eq(refreshTokens.psuId, code.psuId),
        gte(refreshTokens.createdAt, code.createdAt),
        isNull(refreshTokens.revokedAt),
      ),
    )
    .returning({ tokenHash: refreshTokens.tokenHash });
  const issued = await db
    .update(accessTokens)
    .set({ revokedAt: at })
    .where(
      and(
        eq(accessTokens.kind, 'refresh_token'),
        eq(accessTokens.clientId, code.clientId),
        eq(accessTokens.scope, code.scope),
        eq(accessTokens.psuId, code.psuId),
        gte(accessTokens.createdAt, code.createdAt),
        isNull(accessTokens.revokedAt),
      ),
    )
    .returning({ tokenHash: accessTokens.tokenHash });
  const revoked = (token: 'refresh' | 'access') => ({
    ...actor,
    event: 'token.revoked',
    outcome: 'ok',
    resource: code.scope,
    appId: code.clientId,
    psuId: code.psuId,
    detail: { reason: 'code replayed', token },
  });
  await recordEvents(db, [
    ...refreshed.map(() => revoked('refresh')),
    ...issued.map(() => revoked('access')),
  ]);
}
