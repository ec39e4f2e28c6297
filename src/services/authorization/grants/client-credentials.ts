// grant_type=client_credentials (spec row 1): a token for endpoints that touch no PSU data: scope PIS,
// AIS or CBPII for an app (live: only when the TPP's certificate carries the role, spec
// "Authentication" 1), or scope PSD2-ADMIN for an enrolled TPP's onboarding (live: over TLS with one
// of its certificates, and bound to that certificate).

import type { PeerIdentity } from '../../../certificates/qwac.ts';
import type { AuditActor } from '../../../domain/audit.ts';
import { OAuthError } from '../../../domain/errors.ts';
import { rolesGiving } from '../../../domain/psp-roles.ts';
import { type ClientCredentialsScope, isClientCredentialsScope } from '../../../domain/scope.ts';
import { findTpp } from '../../../store/tpps-repository.ts';
import { registeredCertificate } from '../../access/live-access.ts';
import { issueToken, LIFETIMES, type TokenResponse } from '../../access/tokens.ts';
import type { ServiceContext } from '../../shared/context.ts';
import { authenticateClient, required, type TokenParameters } from './parameters.ts';

export const grantType = 'client_credentials';

export const ADMIN_SCOPE = 'PSD2-ADMIN';

export async function handler(
  context: ServiceContext,
  parameters: TokenParameters,
  peer: PeerIdentity,
  actor?: AuditActor,
): Promise<TokenResponse> {
  const scope = required(parameters, 'scope');
  if (scope === ADMIN_SCOPE) return adminToken(context, parameters, peer, actor);
  const { app, thumbprint } = await authenticateClient(context, parameters, peer);
  if (!isClientCredentialsScope(scope)) {
    throw new OAuthError(
      'invalid_scope',
      'scope is not available with client credentials; use PIS, AIS or CBPII',
    );
  }
  requireRole(context, peer, scope);
  return issueToken(context.db, context, {
    kind: 'client_credentials',
    clientId: app.clientId,
    scope,
    psuId: null,
    codeHash: null,
    expiresIn: LIFETIMES.clientCredentials,
    enforceExpiry: true,
    certThumbprint: thumbprint,
    actor,
  });
}

/**
 * Live, the certificate the client authenticated with must carry the role of the scope (PIS also
 * gives CBPII); without mutual TLS there is no certificate to ask (as authenticateClient).
 */
function requireRole(context: ServiceContext, peer: PeerIdentity, scope: ClientCredentialsScope): void {
  if (!context.policy.clientTokenNeedsRole || !context.mtls) return;
  if (peer.kind === 'qwac' && peer.qwac.scopes.includes(scope)) return;
  throw new OAuthError(
    'invalid_scope',
    `scope ${scope} needs the ${rolesGiving(scope).join(' or ')} role in the certificate`,
  );
}

async function adminToken(
  context: ServiceContext,
  parameters: TokenParameters,
  peer: PeerIdentity,
  actor: AuditActor | undefined,
): Promise<TokenResponse> {
  const tppId = required(parameters, 'client_id');
  const tpp = await findTpp(context.db, tppId);
  if (tpp === undefined) throw new OAuthError('invalid_client', 'client authentication failed');
  let thumbprint: string | null = null;
  if (context.mtls || peer.kind !== 'none') {
    const certificate = await registeredCertificate(context, peer);
    if (certificate === undefined || certificate.tppId !== tpp.tppId) {
      throw new OAuthError('invalid_client', 'client authentication failed');
    }
    thumbprint = certificate.thumbprint;
  }
  return issueToken(context.db, context, {
    kind: 'client_credentials',
    clientId: tpp.tppId,
    scope: ADMIN_SCOPE,
    psuId: null,
    codeHash: null,
    expiresIn: LIFETIMES.adminToken,
    enforceExpiry: true,
    certThumbprint: thumbprint,
    actor,
  });
}
