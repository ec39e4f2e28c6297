// POST /oauth2/token/1.0: picks the grant module by grant_type (one module per grant).
import type { PeerIdentity } from '../../../certificates/qwac.ts';
import { OAuthError } from '../../../domain/errors.ts';
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
): Promise<TokenResponse> {
  const grantType = required(parameters, 'grant_type');
  const grant = GRANTS.get(grantType);
  if (grant === undefined)
    throw new OAuthError(
      'unsupported_grant_type',
      'grant_type must be client_credentials, authorization_code or refresh_token',
    );
  // Each grant has committed its token when it answers.
  const token = await grant.handler(context, parameters, peer);
  context.metrics.tokenIssued(grant.kind);
  return token;
}
