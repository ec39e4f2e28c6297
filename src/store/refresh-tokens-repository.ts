// Refresh tokens, stored only as SHA-256 hashes of the secrets, each with the TPP of the certificate it
// is bound to. Those the code exchange issues are written by its own statement (tokens-repository.ts).
import { eq } from 'drizzle-orm';
import type { Db } from './database.ts';
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
