// Step 1: the client-credentials token (spec row 1) and the token endpoint's OAuth errors.
import { type Check, type CheckContext, Deviation } from '../check.ts';
import { expectOAuthError, type OAuthErrorWanted } from '../error-shapes.ts';
import { expectAccessToken, expectValue, jsonBody, shown } from '../expect.ts';
import { requestClientToken } from '../flow.ts';
import { type Answer, send } from '../http.ts';

/** A token request with one thing wrong, answered with an OAuth error. */
function tokenError(
  id: string,
  title: string,
  ref: string,
  call: (context: CheckContext) => Promise<Answer>,
  wanted: OAuthErrorWanted,
): Check {
  return {
    id,
    title,
    ref,
    async run(context) {
      expectOAuthError(await call(context), wanted);
    },
  };
}

export const tokenChecks: readonly Check[] = [
  {
    id: 'token.client-credentials',
    title: 'a client-credentials token with scope PIS',
    ref: 'spec row 1 + Resources "Access token response": access_token, expires_in integer, token_type "Always Bearer"',
    provides: ['clientToken'],
    async run(context) {
      context.provide('clientToken', expectAccessToken(jsonBody(await requestClientToken(context), 200)));
    },
  },
  {
    id: 'token.client-credentials.lifetime',
    title: 'the client-credentials token lives 86400 s',
    ref: 'spec Limits "Client-credentials token lifetime, sandbox payments: expires_in 86400"',
    needs: ['clientToken'],
    async run(context) {
      expectValue(jsonBody(await requestClientToken(context), 200), 'expires_in', 86400);
    },
  },
  {
    id: 'token.no-store',
    title: 'token answers are not cached',
    ref: 'API-NOTES Error bodies "OAuth endpoints: RFC 6749" (RFC 6749 5.1: "Cache-Control: no-store")',
    needs: ['clientToken'],
    async run(context) {
      const cacheControl = (await requestClientToken(context)).headers.get('cache-control');
      if (!/\bno-store\b/i.test(cacheControl ?? '')) {
        throw new Deviation('Cache-Control: no-store', `Cache-Control: ${shown(cacheControl ?? undefined)}`);
      }
    },
  },
  tokenError(
    'token.unsupported-grant-type',
    'an unknown grant_type is an OAuth error',
    'API-NOTES Error bodies: RFC 6749 {"error", "error_description"}, "400 for ... unsupported_grant_type"',
    (context) => requestClientToken(context, { grant_type: 'password' }),
    { status: 400, errors: ['unsupported_grant_type'] },
  ),
  tokenError(
    'token.unknown-client',
    'an unknown client_id is invalid_client',
    'API-NOTES Error bodies: "401 for invalid_client"',
    (context) => requestClientToken(context, { client_id: 'no-such-app-0000000000000000' }),
    { status: 401, errors: ['invalid_client'] },
  ),
  tokenError(
    'token.missing-scope',
    'a token request without scope is invalid_request',
    'spec row 1 "scope (required)"; API-NOTES Error bodies "400 for invalid_request"',
    (context) => requestClientToken(context, { scope: undefined }),
    { status: 400, errors: ['invalid_request'] },
  ),
  tokenError(
    'token.form-only',
    'a JSON token request is refused',
    'spec row 1 "Form (application/x-www-form-urlencoded)"; API-NOTES "400 for invalid_request"',
    (context) =>
      // A raw body, not `json`: JSON is not what the contract names here (http.ts's Answer.asked).
      send(context, {
        method: 'POST',
        path: '/oauth2/token/1.0',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({
          grant_type: 'client_credentials',
          scope: 'PIS',
          client_id: context.options.clientId,
        }),
      }),
    { status: 400, errors: ['invalid_request'] },
  ),
];
