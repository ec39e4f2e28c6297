// grant_type=authorization_code (spec row 1): the PSU's code exchanged for a PSU token bound to the
// scope, PSU and app. Codes are single-use; a replayed code revokes the tokens it issued, its refresh
// token's too (RFC 6749 4.1.2, RFC 9700).

import type { PeerIdentity } from '../../../certificates/qwac.ts';
import type { AuditActor } from '../../../domain/audit.ts';
import { OAuthError } from '../../../domain/errors.ts';
import { constantEquals, hashSecret, pkceChallenge } from '../../../domain/secrets.ts';
import { revokeRefreshTokensOfCode } from '../../../store/refresh-tokens-repository.ts';
import { consumeCode, exchangeCode, findCode, revokeTokenOfCode } from '../../../store/tokens-repository.ts';
import { issuePsuTokens, newPsuTokens, type TokenResponse } from '../../access/tokens.ts';
import type { ServiceContext } from '../../shared/context.ts';
import { authenticateClient, required, type TokenParameters } from './parameters.ts';

export const grantType = 'authorization_code';

const REPLAYED = Symbol('replayed');

/** A PKCE code verifier (RFC 7636 4.1). */
const VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;

export async function handler(
  context: ServiceContext,
  parameters: TokenParameters,
  peer: PeerIdentity,
  actor?: AuditActor,
): Promise<TokenResponse> {
  const code = required(parameters, 'code');
  const redirectUri = required(parameters, 'redirect_uri');
  const scope = required(parameters, 'scope');
  const { app, thumbprint } = await authenticateClient(context, parameters, peer);
  const codeHash = hashSecret(code);
  // A code that matches is used and its tokens stored in one statement; any other finds out why below.
  const verifier = parameters.code_verifier;
  if (verifier === undefined || VERIFIER.test(verifier)) {
    const tokens = newPsuTokens(context, {
      kind: 'authorization_code',
      clientId: app.clientId,
      scope,
      codeHash,
      certThumbprint: thumbprint,
    });
    const exchange = {
      codeHash,
      at: context.clock(),
      clientId: app.clientId,
      redirectUri,
      scope,
      codeChallenge: verifier === undefined ? null : pkceChallenge(verifier),
    };
    if (await exchangeCode(context.db, exchange, tokens.access, tokens.refresh, actor))
      return tokens.response;
  }
  const answer = await context.db.transaction(async (trx) => {
    const now = context.clock();
    const row = await consumeCode(trx, codeHash, now);
    if (row === undefined) {
      const known = await findCode(trx, codeHash);
      if (known === undefined) throw new OAuthError('invalid_grant', 'the code is not valid');
      await revokeTokenOfCode(trx, codeHash, now, actor);
      await revokeRefreshTokensOfCode(trx, known, now, actor);
      // Returned, not thrown: the revocation must commit.
      return REPLAYED;
    }
    if (row.expiresAt.getTime() <= now.getTime())
      throw new OAuthError('invalid_grant', 'the code has expired');
    // Another client's code answers as an unknown one (issue 37).
    if (row.clientId !== app.clientId) throw new OAuthError('invalid_grant', 'the code is not valid');
    if (row.redirectUri !== redirectUri) {
      throw new OAuthError('invalid_grant', 'redirect_uri differs from the one of the authorization request');
    }
    if (row.scope !== scope)
      throw new OAuthError('invalid_scope', 'scope differs from the one that was authorized');
    checkPkce(row.codeChallenge, parameters.code_verifier);
    return issuePsuTokens(trx, context, {
      kind: 'authorization_code',
      clientId: app.clientId,
      scope: row.scope,
      psuId: row.psuId,
      codeHash,
      certThumbprint: thumbprint,
      actor,
    });
  });
  if (answer === REPLAYED) throw new OAuthError('invalid_grant', 'the code has already been used');
  return answer;
}

function checkPkce(challenge: string | null, verifier: string | undefined): void {
  if (challenge === null) {
    if (verifier !== undefined)
      throw new OAuthError('invalid_grant', 'code_verifier sent but no code_challenge was');
    return;
  }
  if (verifier === undefined || !VERIFIER.test(verifier)) {
    throw new OAuthError('invalid_grant', 'code_verifier is required and must be 43 to 128 characters');
  }
  if (!constantEquals(pkceChallenge(verifier), challenge)) {
    throw new OAuthError('invalid_grant', 'code_verifier does not match the code_challenge');
  }
}
