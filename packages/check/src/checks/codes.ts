// Step 3, code exchange (spec row 1, authorization code) and the rules of codes: single use, bound to
// the client, the redirect URI and the scope they were issued for (API-NOTES "OAuth hygiene"; spec
// Authentication 5). The rules are tried on the general payment, which is never executed.
import { type Check, type CheckContext, Skip } from '../check.ts';
import { expectApiError, expectOAuthError } from '../error-shapes.ts';
import { expectAccessToken, expectString, expectValue, jsonBody } from '../expect.ts';
import { countryOf, SEPA } from '../fixtures.ts';
import { readStatus, requestCodeToken, setupCode } from '../flow.ts';

const INVALID_GRANT = { status: 400, errors: ['invalid_grant'] } as const;

/** A fresh code of the general payment, and its scope. */
async function generalCode(context: CheckContext): Promise<{ scope: string; code: string }> {
  const scope = `PIS:${context.fact('generalPayment')}`;
  return { scope, code: await setupCode(context, scope) };
}

export const codeChecks: readonly Check[] = [
  {
    id: 'token.authorization-code',
    title: 'the code is exchanged for a PSU token',
    ref: 'spec row 1 "Authorization code: grant_type=authorization_code, scope=PIS:<payment_id>, client_id, code, redirect_uri": "200: access token response"',
    needs: ['sePayment', 'seCode'],
    provides: ['psuToken'],
    async run(context) {
      const answer = await requestCodeToken(
        context,
        `PIS:${context.fact('sePayment')}`,
        context.fact('seCode'),
      );
      context.provide('psuToken', expectAccessToken(jsonBody(answer, 200)));
    },
  },
  {
    id: 'token.authorization-code.lifetime',
    title: 'the PSU token lives 900 s',
    ref: 'spec Limits "Authorization code grant / decoupled grant token lifetime: expires_in 900"',
    needs: ['generalPayment', 'psuToken'],
    async run(context) {
      const { scope, code } = await generalCode(context);
      expectValue(jsonBody(await requestCodeToken(context, scope, code), 200), 'expires_in', 900);
    },
  },
  {
    id: 'code.unknown',
    title: 'an unknown code is invalid_grant',
    ref: 'API-NOTES Error bodies "400 for ... invalid_grant"',
    needs: ['generalPayment'],
    async run(context) {
      const answer = await requestCodeToken(context, `PIS:${context.fact('generalPayment')}`, 'no-such-code');
      expectOAuthError(answer, INVALID_GRANT);
    },
  },
  {
    id: 'code.single-use',
    title: 'a code is exchanged once; a replay is invalid_grant and revokes the token it issued',
    ref: 'API-NOTES OAuth hygiene "codes are single-use ... and a replayed code revokes what it issued"',
    needs: ['generalPayment', 'psuToken', 'clientToken'],
    async run(context) {
      const { scope, code } = await generalCode(context);
      const first = expectString(jsonBody(await requestCodeToken(context, scope, code), 200), 'access_token');
      expectOAuthError(await requestCodeToken(context, scope, code), INVALID_GRANT);
      const read = await readStatus(
        context,
        SEPA,
        context.fact('generalPayment'),
        first,
        countryOf(context.options),
      );
      expectApiError(read, { status: 401, codes: ['TOKEN_INVALID', 'TOKEN_UNKNOWN', 'TOKEN_EXPIRED'] });
    },
  },
  {
    id: 'code.bound-redirect-uri',
    title: 'a code exchanged with another redirect_uri is invalid_grant',
    ref: 'spec row 1 "redirect_uri (required)"; API-NOTES OAuth hygiene "Redirect URIs match exactly"',
    needs: ['generalPayment', 'psuToken'],
    async run(context) {
      const { scope, code } = await generalCode(context);
      const answer = await requestCodeToken(context, scope, code, {
        redirect_uri: 'https://attacker.example/callback',
      });
      expectOAuthError(answer, INVALID_GRANT);
    },
  },
  {
    id: 'code.bound-client',
    title: 'a code exchanged by another app is invalid_grant',
    ref: 'spec Authentication 5 "A PSU token is valid only for the scope and PSU consent given at authorization"; RFC 6749 5.2 invalid_grant',
    needs: ['generalPayment', 'psuToken'],
    async run(context) {
      const other = context.options.otherClientId;
      if (other === undefined) throw new Skip('no --other-client-id: a second app of the endpoint is needed');
      const { scope, code } = await generalCode(context);
      expectOAuthError(await requestCodeToken(context, scope, code, { client_id: other }), INVALID_GRANT);
    },
  },
  {
    id: 'code.bound-scope',
    title: "a code exchanged for another payment's scope is refused",
    ref: 'spec Authentication 5 "A PSU token is valid only for the scope ... given at authorization"; API-NOTES "400 for ... invalid_grant, invalid_scope"',
    needs: ['generalPayment', 'sePayment', 'psuToken'],
    async run(context) {
      const { code } = await generalCode(context);
      const answer = await requestCodeToken(context, `PIS:${context.fact('sePayment')}`, code);
      expectOAuthError(answer, { status: 400, errors: ['invalid_scope', 'invalid_grant'] });
    },
  },
];
