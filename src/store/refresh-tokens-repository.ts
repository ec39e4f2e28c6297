// Refresh tokens, stored only as SHA-256 hashes of the secrets, each with the TPP of the certificate it
// is bound to. Those the code exchange issues are written by its own statement (tokens-repository.ts).
import { eq, sql } from 'drizzle-orm';
import type { AuditActor } from '../domain/audit.ts';
import { recordEvents } from './audit/record.ts';
import { type Db, rowsOf } from './database.ts';
import { refreshTokens, tppCertificates } from './schema.ts';

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
  const revokedAt = at.toISOString();
  const since = code.createdAt.toISOString();
  const result = await db.execute(sql`WITH refreshed AS (
      UPDATE refresh_tokens SET revoked_at = ${revokedAt}::timestamptz
       WHERE client_id = ${code.clientId} AND scope = ${code.scope} AND psu_id = ${code.psuId}
         AND created_at >= ${since}::timestamptz AND revoked_at IS NULL
      RETURNING 'refresh' AS token
    ),
    issued AS (
      UPDATE access_tokens SET revoked_at = ${revokedAt}::timestamptz
       WHERE kind = 'refresh_token' AND client_id = ${code.clientId} AND scope = ${code.scope}
         AND psu_id = ${code.psuId} AND created_at >= ${since}::timestamptz AND revoked_at IS NULL
      RETURNING 'access' AS token
    )
    SELECT token FROM refreshed UNION ALL SELECT token FROM issued`);
  const tokens = rowsOf<{ token: 'refresh' | 'access' }>(result);
  const revoked = (token: 'refresh' | 'access') => ({
    ...actor,
    event: 'token.revoked',
    outcome: 'ok',
    resource: code.scope,
    appId: code.clientId,
    psuId: code.psuId,
    detail: { reason: 'code replayed', token },
  });
  await recordEvents(
    db,
    tokens.map((row) => revoked(row.token)),
  );
}
