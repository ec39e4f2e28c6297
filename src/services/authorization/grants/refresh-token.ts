// grant_type=refresh_token (also at /refresh/oauth2/token/1.0): a new access token for an account-access
// authorization, as the real service answers it: no new refresh token. A refresh token is not rotated;
// it stays valid while its consent does, bound to its app and, issued over mutual TLS, to the TPP's
// certificate set: any certificate the TPP holds now, so that a renewed certificate keeps the consent
// (a sender-constrained refresh token needs no rotation, RFC 9700 2.2.2). Once the consent
// ends (deleted, expired, revoked) the refresh token, and every access token of the consent, reads
// nothing more.

import type { PeerIdentity } from '../../../certificates/qwac.ts';
import type { AuditActor } from '../../../domain/audit.ts';
import { OAuthError } from '../../../domain/errors.ts';
import { parseResourceScope } from '../../../domain/scope.ts';
import { hashSecret } from '../../../domain/secrets.ts';
import { findRefreshToken } from '../../../store/refresh-tokens-repository.ts';
import { presentsBoundCertificate } from '../../access/live-access.ts';
import { issueToken, LIFETIMES, type TokenResponse } from '../../access/tokens.ts';
import type { ServiceContext } from '../../shared/context.ts';
import { authenticateClient, required, type TokenParameters } from './parameters.ts';

export const grantType = 'refresh_token';

export async function handler(
  context: ServiceContext,
  parameters: TokenParameters,
  peer: PeerIdentity,
  actor?: AuditActor,
): Promise<TokenResponse> {
  const presented = required(parameters, 'refresh_token');
  const { app, thumbprint } = await authenticateClient(context, parameters, peer);
  const now = context.clock();
  const row = await findRefreshToken(context.db, hashSecret(presented));
  // Another client's refresh token answers as an unknown one (issue 37).
  if (row === undefined || row.clientId !== app.clientId)
    throw new OAuthError('invalid_grant', 'the refresh token is not valid');
  // A token used under the rotation of earlier versions is dead, as it was then.
  if (row.revokedAt !== null || row.usedAt !== null)
    throw new OAuthError('invalid_grant', 'the refresh token has been revoked');
  if (row.expiresAt.getTime() <= now.getTime())
    throw new OAuthError('invalid_grant', 'the refresh token has expired');
  const binding = { thumbprint: row.certThumbprint, tppId: row.certTppId };
  if (!(await presentsBoundCertificate(context, binding, peer)))
    throw new OAuthError('invalid_grant', 'the refresh token is bound to another certificate');
  if (!(await stillGrants(context, row.scope, now))) {
    throw new OAuthError('invalid_grant', 'the consent of the refresh token is no longer valid');
  }
  const scope = parameters.scope;
  if (scope !== undefined && scope !== row.scope) {
    throw new OAuthError('invalid_scope', 'scope must be the one of the original authorization');
  }
  return issueToken(context.db, context, {
    kind: 'refresh_token',
    clientId: row.clientId,
    scope: row.scope,
    psuId: row.psuId,
    codeHash: null,
    expiresIn: LIFETIMES.psuToken,
    enforceExpiry: context.policy.enforcePsuTokenExpiry,
    certThumbprint: thumbprint,
    actor,
  });
}

/** An account-access scope grants while its consent does (the registry's resource says); others always. */
async function stillGrants(context: ServiceContext, scope: string, now: Date): Promise<boolean> {
  const parsed = parseResourceScope(scope);
  if (parsed?.service !== 'AIS') return true;
  const resource = await context.authorizables.find(parsed);
  return resource?.stillGrants(now) === true;
}
