// Step 3, redirect (spec row 8): the code comes back at once in a 302 to the redirect URI with the
// state; errors come back the same way with error and error_description (spec Errors 1), except when
// the client or the redirect URI is not the registered one: then nothing redirects (API-NOTES).
import { type Check, type CheckContext, Deviation } from '../check.ts';
import { expectApiError } from '../error-shapes.ts';
import { clip, shown } from '../expect.ts';
import { redirectQuery, requestAuthorize } from '../flow.ts';
import type { Answer } from '../http.ts';

const ROW_8 = 'spec row 8 "302 with Location = redirect URI plus query state and code"';
const ERROR_REDIRECT =
  'spec row 8 + Errors 1 "the 302 Location URL carries query parameters error and error_description"';
const NO_REDIRECT =
  'API-NOTES Error bodies "otherwise (unknown client, unregistered URI) never redirect: answer 400 with the JSON body"';

/** The code of a 302 that echoes the state. */
function expectCode(context: CheckContext, answer: Answer, state: string): string {
  const query = redirectQuery(context, answer, 'code and state');
  if (query.get('state') !== state) {
    throw new Deviation(`state=${state} in the Location`, `state ${shown(query.get('state') ?? undefined)}`);
  }
  const code = query.get('code');
  if (!code) throw new Deviation('code in the Location', `query ${clip(query.toString())}`);
  return code;
}

function expectErrorRedirect(
  context: CheckContext,
  answer: Answer,
  errors: readonly string[],
  state?: string,
): void {
  const query = redirectQuery(context, answer, `error ${errors.join('|')}`);
  const error = query.get('error');
  if (error === null || !errors.includes(error) || !query.get('error_description')) {
    throw new Deviation(
      `error=${errors.join('|')} and error_description in the Location`,
      `query ${clip(query.toString())}`,
    );
  }
  if (state !== undefined && query.get('state') !== state) {
    throw new Deviation(`state=${state} in the Location`, `state ${shown(query.get('state') ?? undefined)}`);
  }
}

/** An authorize request for the general payment with `query` changed, and what its answer must be. */
function authorizeCase(
  id: string,
  title: string,
  ref: string,
  query: Record<string, string | undefined>,
  expect: (context: CheckContext, answer: Answer, state: string | undefined) => void,
): Check {
  return {
    id,
    title,
    ref,
    needs: ['generalPayment'],
    async run(context) {
      const state = 'state' in query ? query.state : `check-${id}`;
      const scope = `PIS:${context.fact('generalPayment')}`;
      expect(context, await requestAuthorize(context, scope, { ...query, state }), state);
    },
  };
}

const redirectsWith =
  (errors: readonly string[]) => (context: CheckContext, answer: Answer, state: string | undefined) =>
    expectErrorRedirect(context, answer, errors, state);

/** 400 in the API error shape, and no Location. */
function expectNoRedirect(_context: CheckContext, answer: Answer): void {
  const location = answer.headers.get('location');
  if (location !== null) throw new Deviation('no redirect', `${answer.status} to ${clip(location)}`);
  expectApiError(answer, { status: 400, codes: [] });
}

export const authorizeChecks: readonly Check[] = [
  {
    id: 'authorize.redirect',
    title: 'authorize answers 302 to the redirect URI with code and state',
    ref: `${ROW_8}; Authentication 7 "returns the code immediately"`,
    needs: ['sePayment'],
    provides: ['seCode'],
    async run(context) {
      const answer = await requestAuthorize(context, `PIS:${context.fact('sePayment')}`, {
        state: 'check-state-1',
      });
      context.provide('seCode', expectCode(context, answer, 'check-state-1'));
    },
  },
  {
    id: 'authorize.alias-path',
    title: 'authorize answers under /redirect/oauth2/authorize/1.0 too',
    ref: 'spec row 8 "(also named as {base_url}/redirect/oauth2/authorize/1.0)"',
    needs: ['generalPayment'],
    async run(context) {
      const scope = `PIS:${context.fact('generalPayment')}`;
      const answer = await requestAuthorize(
        context,
        scope,
        { state: 'check-state-2' },
        '/redirect/oauth2/authorize/1.0',
      );
      expectCode(context, answer, 'check-state-2');
    },
  },
  {
    id: 'authorize.unknown-scope',
    title: 'a scope naming no payment redirects with an error',
    ref: `${ERROR_REDIRECT}; Authentication 6 "PIS:<payment_id>"`,
    async run(context) {
      const answer = await requestAuthorize(context, 'PIS:no-such-payment', { state: 'check-state-3' });
      expectErrorRedirect(context, answer, ['invalid_scope', 'invalid_request'], 'check-state-3');
    },
  },
  authorizeCase(
    'authorize.response-type',
    'response_type other than code redirects with unsupported_response_type',
    `${ERROR_REDIRECT}; row 8 "response_type=code (required)"`,
    { response_type: 'token' },
    redirectsWith(['unsupported_response_type']),
  ),
  authorizeCase(
    'authorize.missing-state',
    'no state redirects with invalid_request',
    `${ERROR_REDIRECT}; row 8 "state (required, TPP-chosen)"`,
    { state: undefined },
    redirectsWith(['invalid_request']),
  ),
  authorizeCase(
    'authorize.unregistered-redirect-uri',
    'an unregistered redirect_uri is never redirected to',
    `spec Authentication 4 "Each app has one redirect URI"; ${NO_REDIRECT}`,
    { redirect_uri: 'https://attacker.example/callback' },
    expectNoRedirect,
  ),
  authorizeCase(
    'authorize.unknown-client',
    'an unknown client_id is never redirected',
    `spec row 8 "client_id (required)"; ${NO_REDIRECT}`,
    { client_id: 'no-such-app-0000000000000000' },
    expectNoRedirect,
  ),
];
