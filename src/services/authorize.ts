// GET /oauth2/authorize/1.0 (spec row 8). With a valid client and its registered redirect URI, the
// answer is always a redirect there: a code, or error and error_description. Otherwise it never
// redirects. In the sandbox the PSU who owns the debtor account approves at once (spec: "the code is
// returned at once").
import { ApiError, apiError, OAuthError } from '../domain/errors.ts';
import { parseResourceScope } from '../domain/scope.ts';
import { hashSecret, newSecret } from '../domain/secrets.ts';
import { findPayment } from '../store/payments-repository.ts';
import { insertCode } from '../store/tokens-repository.ts';
import { appOf } from './apps.ts';
import { LIFETIMES, type ServiceContext } from './context.ts';

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

/** Answers the Location to redirect to, or throws ApiError (400) when no redirect is allowed. */
export async function authorize(context: ServiceContext, query: AuthorizeQuery): Promise<string> {
  const clientId = single(query, 'client_id');
  const redirectUri = single(query, 'redirect_uri');
  if (clientId === undefined) throw apiError('FORMAT_ERROR', 'client_id is required', 'client_id');
  const app = await appOf(context, clientId);
  if (app === undefined)
    throw new ApiError(
      { code: 'CLIENT_UNKNOWN', path: 'client_id', text: 'client_id is not a registered app' },
      400,
    );
  if (redirectUri === undefined || redirectUri !== app.redirectUri) {
    throw apiError('FORMAT_ERROR', "redirect_uri is not the app's registered redirect URI", 'redirect_uri');
  }
  const state = single(query, 'state') || undefined;
  try {
    const code = await approve(context, query, app.clientId, redirectUri, state);
    return withQuery(redirectUri, { code, state });
  } catch (error) {
    if (!(error instanceof OAuthError)) throw error;
    return withQuery(redirectUri, { error: error.error, error_description: error.description, state });
  }
}

async function approve(
  context: ServiceContext,
  query: AuthorizeQuery,
  clientId: string,
  redirectUri: string,
  state: string | undefined,
): Promise<string> {
  for (const name of PARAMETERS) {
    if (Array.isArray(query[name])) throw new OAuthError('invalid_request', `${name} must be given once`);
  }
  if (single(query, 'response_type') !== 'code') {
    throw new OAuthError('unsupported_response_type', 'response_type must be code');
  }
  if (state === undefined) throw new OAuthError('invalid_request', 'state is required');
  const challenge = pkce(query);
  const scopeText = single(query, 'scope') ?? '';
  const scope = parseResourceScope(scopeText);
  if (scope === undefined) throw new OAuthError('invalid_scope', 'scope must be PIS:<paymentId>');
  const payment = await findPayment(context.db, scope.resourceId);
  if (payment === undefined || payment.clientId !== clientId) {
    throw new OAuthError('invalid_scope', 'scope names no payment of this app');
  }
  if (payment.status !== 'ACTC')
    throw new OAuthError('invalid_scope', 'the payment is not awaiting authorization');
  const code = newSecret();
  const now = context.clock();
  await insertCode(context.db, {
    codeHash: hashSecret(code),
    clientId,
    redirectUri,
    scope: scopeText,
    psuId: payment.psuId,
    codeChallenge: challenge,
    expiresAt: new Date(now.getTime() + LIFETIMES.code[context.config.mode] * 1000),
    createdAt: now,
  });
  return code;
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

function single(query: AuthorizeQuery, name: string): string | undefined {
  const value = query[name];
  return Array.isArray(value) ? undefined : value;
}

function withQuery(uri: string, parameters: Record<string, string | undefined>): string {
  const url = new URL(uri);
  for (const [name, value] of Object.entries(parameters)) {
    if (value !== undefined) url.searchParams.set(name, value);
  }
  return url.toString();
}
