// POST /oauth2/token/1.0: picks the grant module by grant_type (one module per grant).
import type { PeerIdentity } from '../../../certificates/qwac.ts';
import type { AuditActor } from '../../../domain/audit.ts';
import { OAuthError } from '../../../domain/errors.ts';
import { recordEvents } from '../../../store/audit/record.ts';
import type { TokenResponse } from '../../access/tokens.ts';
import type { ServiceContext } from '../../shared/context.ts';
import type { TokenGrantKind } from '../../shared/metrics.ts';
import * as authorizationCode from './authorization-code.ts';
import * as clientCredentials from './client-credentials.ts';
import { required, type TokenParameters } from './parameters.ts';
import * as refreshToken from './refresh-token.ts';

type Grant = (
  context: ServiceContext,
  parameters: TokenParameters,
  peer: PeerIdentity,
  actor: AuditActor | undefined,
) => Promise<TokenResponse>;

const GRANTS = new Map<string, { readonly kind: TokenGrantKind; readonly handler: Grant }>(
  [clientCredentials, authorizationCode, refreshToken].map((grant) => [
    grant.grantType,
    { kind: grant.grantType, handler: grant.handler },
  ]),
);

/** `peer` is the TLS client certificate of the request, if any. */
export async function exchangeToken(
  context: ServiceContext,
  parameters: TokenParameters,
  peer: PeerIdentity = { kind: 'none' },
  actor?: AuditActor,
): Promise<TokenResponse> {
  try {
    const grantType = required(parameters, 'grant_type');
    const grant = GRANTS.get(grantType);
    if (grant === undefined)
      throw new OAuthError(
        'unsupported_grant_type',
        'grant_type must be client_credentials, authorization_code or refresh_token',
      );
    // Each grant has committed its token, and its audit record, when it answers.
    const token = await grant.handler(context, parameters, peer, actor);
    context.metrics.tokenIssued(grant.kind);
    return token;
  } catch (error) {
    if (error instanceof OAuthError) await recordRefusal(context, parameters, actor, error);
    throw error;
  }
}

/**
 * A refused token request in the audit trail: the record is the change (nothing else is written), so
 * it stands alone. The app is the client_id the request named (unauthenticated: as claimed).
 */
async function recordRefusal(
  context: ServiceContext,
  parameters: TokenParameters,
  actor: AuditActor | undefined,
  error: OAuthError,
): Promise<void> {
  await recordEvents(context.db, [
    {
      ...actor,
      appId: parameters.client_id ?? actor?.appId ?? null,
      event: 'token.refused',
      outcome: error.error,
      resource: parameters.scope ?? null,
      detail: { grantType: parameters.grant_type ?? null, reason: error.description },
    },
  ]);
}
