// grant_type=refresh_token (also at /refresh/oauth2/token/1.0): a new access token for an account-access
// authorization, and a new refresh token in place of the used one. A used refresh token presented
// again revokes the whole family: someone else may hold a copy (RFC 9700).
import type { PeerIdentity } from '../../../certificates/qwac.ts';
import { OAuthError } from '../../../domain/errors.ts';
import { parseResourceScope } from '../../../domain/scope.ts';
import { hashSecret } from '../../../domain/secrets.ts';
import { findRefreshToken, revokeRefreshFamily, useRefreshToken } from '../../../store/tokens-repository.ts';
import { issuePsuTokens, type TokenResponse } from '../../access/tokens.ts';
import type { ServiceContext } from '../../shared/context.ts';
import { authenticateClient, required, type TokenParameters } from './parameters.ts';

export const grantType = 'refresh_token';

const REUSED = Symbol('reused');

export async function handler(
  context: ServiceContext,
  parameters: TokenParameters,
  peer: PeerIdentity,
): Promise<TokenResponse> {
  const presented = required(parameters, 'refresh_token');
  const { app, thumbprint } = await authenticateClient(context, parameters, peer);
  const tokenHash = hashSecret(presented);
  const now = context.clock();
  // Whether its consent still grants access: asked before the transaction (a refresh token's scope
  // never changes), decided at its place in the checks below.
  const grants = await stillGrants(context, (await findRefreshToken(context.db, tokenHash))?.scope, now);
  const answer = await context.db.transaction(async (trx) => {
    const row = await useRefreshToken(trx, tokenHash, now);
    if (row === undefined) {
      const known = await findRefreshToken(trx, tokenHash);
      if (known === undefined || known.clientId !== app.clientId) {
        throw new OAuthError('invalid_grant', 'the refresh token is not valid');
      }
      if (known.usedAt !== null) {
        await revokeRefreshFamily(trx, known.familyId, now);
        // Returned, not thrown: the revocation must commit.
        return REUSED;
      }
      throw new OAuthError('invalid_grant', 'the refresh token has been revoked');
    }
    if (row.clientId !== app.clientId)
      throw new OAuthError('invalid_grant', 'the refresh token was issued to another client');
    if (row.expiresAt.getTime() <= now.getTime())
      throw new OAuthError('invalid_grant', 'the refresh token has expired');
    if (!grants) {
      throw new OAuthError('invalid_grant', 'the consent of the refresh token is no longer valid');
    }
    const scope = parameters.scope;
    if (scope !== undefined && scope !== row.scope) {
      throw new OAuthError('invalid_scope', 'scope must be the one of the original authorization');
    }
    return issuePsuTokens(trx, context, {
      kind: 'refresh_token',
      clientId: row.clientId,
      scope: row.scope,
      psuId: row.psuId,
      codeHash: null,
      certThumbprint: thumbprint,
      refresh: { familyId: row.familyId, expiresAt: row.expiresAt },
    });
  });
  if (answer === REUSED) throw new OAuthError('invalid_grant', 'the refresh token has already been used');
  return answer;
}

/** An account-access scope grants while its consent does (the registry's resource says); others always. */
async function stillGrants(context: ServiceContext, scope: string | undefined, now: Date): Promise<boolean> {
  const parsed = scope === undefined ? undefined : parseResourceScope(scope);
  if (parsed?.service !== 'AIS') return true;
  const resource = await context.authorizables.find(parsed);
  return resource?.stillGrants(now) === true;
}
