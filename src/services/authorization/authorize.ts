// GET /oauth2/authorize/1.0 (spec row 8). With a valid client and its registered redirect URI, the
// answer ends in a redirect there: a code, or error and error_description. Otherwise it never
// redirects. In the sandbox the PSU who owns the debtor account approves at once (spec: "the code is
// returned at once"); live, the PSU logs in and approves on our pages (psu-login.ts): the mode policy says which.

import type { App } from '../../domain/apps.ts';
import type { AuditActor } from '../../domain/audit.ts';
import { ApiError, apiError, OAuthError } from '../../domain/errors.ts';
import { SANDBOX_USERS, sandboxUserPsu } from '../../domain/sandbox-users.ts';
import { parseResourceScope } from '../../domain/scope.ts';
import { isStorableText, UNSTORABLE_TEXT } from '../../domain/text.ts';
import { appOf } from '../access/apps.ts';
import type { ServiceContext } from '../shared/context.ts';
import { type AuthorizationRequest, authorizingPsu, issueCode, recordAuthorizationRefused } from './codes.ts';
import { type PsuAnswer, redirectTo } from './psu-answer.ts';
import { startPsuLogin } from './psu-login.ts';

export type AuthorizeQuery = Readonly<Record<string, string | string[] | undefined>>;

const PARAMETERS = [
  'response_type',
  'scope',
  'client_id',
  'state',
  'redirect_uri',
  'code_challenge',
  'code_challenge_method',
];

/**
 * Throws ApiError (400) when no redirect is allowed; otherwise answers a redirect or a PSU page.
 * `sandboxUser` is the X-Sandbox-User header: in the sandbox it names the PSU who approves at once
 * (an unknown name: 400, naming the valid ones); live the PSU logs in, and the header is ignored.
 */
export async function authorize(
  context: ServiceContext,
  query: AuthorizeQuery,
  sandboxUser?: string,
  actor?: AuditActor,
): Promise<PsuAnswer> {
  const live = context.policy.redirectApproval === 'psu-login';
  const chosenPsu = live || sandboxUser === undefined ? undefined : sandboxUserOf(sandboxUser);
  const clientId = single(query, 'client_id');
  const redirectUri = single(query, 'redirect_uri');
  if (clientId === undefined) throw apiError('FORMAT_ERROR', 'client_id is required', 'client_id');
  // Text no database holds is no registered client id: not asked for.
  const app = isStorableText(clientId) ? await appOf(context, clientId) : undefined;
  if (app === undefined) {
    throw new ApiError(
      { code: 'CLIENT_UNKNOWN', path: 'client_id', text: 'client_id is not a registered app' },
      400,
    );
  }
  if (redirectUri === undefined || redirectUri !== app.redirectUri) {
    throw apiError('FORMAT_ERROR', "redirect_uri is not the app's registered redirect URI", 'redirect_uri');
  }
  const state = single(query, 'state') || undefined;
  try {
    const request = { ...(await checkRequest(context, query, app, redirectUri, state)), actor };
    if (context.policy.redirectApproval === 'psu-login') return startPsuLogin(context, request);
    // The PSU X-Sandbox-User picks must be one who may authorize this, as a PSU who logs in must: a
    // payment's debtor account's owner, a consent's named PSU, an individual for a short-term consent.
    const chosenRefusal = chosenPsu === undefined ? undefined : await request.resource.psuRefusal(chosenPsu);
    if (chosenRefusal !== undefined) {
      await recordAuthorizationRefused(context, request, 'denied', chosenPsu ?? null, chosenRefusal);
      return redirectTo(redirectUri, { error: 'access_denied', error_description: chosenRefusal, state });
    }
    const psuId = chosenPsu ?? authorizingPsu(context, request.resource)!;
    // A sandbox scenario PSU declines, or lets the authorization run out, as the live pages allow; a
    // consent's PSU-ID that names nobody the directory knows is approved by nobody. Only a consent's PSU
    // is the TPP's word (not looked up when it was made): a payment's holds its debtor account (a key),
    // and asking the directory for it would cost every flow a read.
    const refusal =
      context.policy.redirectRefusal(psuId) ??
      (request.resource.service === 'AIS' && (await context.psuDirectory.findPsu(psuId)) === undefined
        ? 'the PSU cannot authorize this'
        : undefined);
    if (refusal !== undefined) {
      await recordAuthorizationRefused(context, request, 'denied', psuId, refusal);
      return redirectTo(redirectUri, { error: 'access_denied', error_description: refusal, state });
    }
    await request.resource.approve(context.db, psuId);
    const code = await issueCode(context, request, psuId);
    return redirectTo(redirectUri, { code, state });
  } catch (error) {
    if (!(error instanceof OAuthError)) throw error;
    return redirectTo(redirectUri, { error: error.error, error_description: error.description, state });
  }
}

async function checkRequest(
  context: ServiceContext,
  query: AuthorizeQuery,
  app: App,
  redirectUri: string,
  state: string | undefined,
): Promise<AuthorizationRequest> {
  for (const name of PARAMETERS) {
    const value = query[name];
    if (Array.isArray(value)) throw new OAuthError('invalid_request', `${name} must be given once`);
    if (value !== undefined && !isStorableText(value))
      throw new OAuthError('invalid_request', `${name} ${UNSTORABLE_TEXT}`);
  }
  if (single(query, 'response_type') !== 'code') {
    throw new OAuthError('unsupported_response_type', 'response_type must be code');
  }
  if (state === undefined) throw new OAuthError('invalid_request', 'state is required');
  const codeChallenge = pkce(query);
  const scope = single(query, 'scope') ?? '';
  const parsed = parseResourceScope(scope);
  if (parsed === undefined)
    throw new OAuthError('invalid_scope', 'scope must be PIS:<paymentId> or AIS:<consentId>');
  const resource = await context.authorizables.find(parsed);
  if (resource === undefined || resource.clientId !== app.clientId) {
    throw new OAuthError('invalid_scope', 'scope names no payment or consent of this app');
  }
  if (resource.refusal !== undefined) throw new OAuthError('invalid_scope', resource.refusal);
  return { app, redirectUri, state, scope, resource, codeChallenge };
}

/** PKCE (RFC 7636): S256 only; the challenge is then enforced at the token endpoint. */
function pkce(query: AuthorizeQuery): string | null {
  const challenge = single(query, 'code_challenge');
  const method = single(query, 'code_challenge_method');
  if (challenge === undefined) {
    if (method !== undefined)
      throw new OAuthError('invalid_request', 'code_challenge_method without code_challenge');
    return null;
  }
  if (method !== 'S256') throw new OAuthError('invalid_request', 'code_challenge_method must be S256');
  if (!/^[A-Za-z0-9_-]{43}$/.test(challenge)) {
    throw new OAuthError('invalid_request', 'code_challenge must be a base64url SHA-256 digest');
  }
  return challenge;
}

function sandboxUserOf(name: string): string {
  const psuId = sandboxUserPsu(name);
  if (psuId === undefined) {
    throw apiError(
      'FORMAT_ERROR',
      `X-Sandbox-User names no sandbox user: use one of ${Object.keys(SANDBOX_USERS).join(', ')}`,
      'X-Sandbox-User',
    );
  }
  return psuId;
}

function single(query: AuthorizeQuery, name: string): string | undefined {
  const value = query[name];
  return Array.isArray(value) ? undefined : value;
}
