// grant_type=client_credentials (spec row 1): a token for endpoints that touch no PSU data.
import { OAuthError } from '../../domain/errors.ts';
import { isClientScope } from '../../domain/scope.ts';
import { LIFETIMES, type ServiceContext } from '../context.ts';
import { issueToken, type TokenResponse } from '../tokens.ts';
import { authenticateClient, required, type TokenParameters } from './parameters.ts';

export const grantType = 'client_credentials';

export async function handler(context: ServiceContext, parameters: TokenParameters): Promise<TokenResponse> {
  const scope = required(parameters, 'scope');
  const app = await authenticateClient(context, parameters);
  if (!isClientScope(scope)) {
    throw new OAuthError(
      'invalid_scope',
      `scope "${scope}" is not available with client credentials; use PIS`,
    );
  }
  return issueToken(context.db, context, {
    kind: 'client_credentials',
    clientId: app.clientId,
    scope,
    psuId: null,
    codeHash: null,
    expiresIn: LIFETIMES.clientCredentials,
    enforceExpiry: true,
  });
}
