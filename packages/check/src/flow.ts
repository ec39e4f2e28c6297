// The contract's steps as requests (spec "End-to-end payment flow" 1-5), for the checks to send as
// they are or with one thing wrong; and the same steps as setup, which skip the check that needs them
// when they are refused (the refusal is another check's failure).
import { newRequestId } from '@psd2-gateway/client';
import { type CheckContext, Deviation, Skip } from './check.ts';
import { clip, summary } from './expect.ts';
import { type Answer, send } from './http.ts';

/** The common headers of payment and account calls (spec "Endpoints"), with fresh request and transaction ids. */
export function tppHeaders(context: CheckContext, token: string | undefined): Record<string, string> {
  return {
    'X-Gateway-Client-Id': context.options.clientId,
    'TPP-Request-ID': newRequestId(),
    'TPP-Transaction-ID': newRequestId(),
    'PSU-IP-Address': context.options.psuIpAddress,
    ...(token === undefined ? {} : { Authorization: `Bearer ${token}` }),
  };
}

/** Step 1 (spec row 1); `form` replaces parameters, or leaves one out (undefined). */
export function requestClientToken(
  context: CheckContext,
  form: Record<string, string | undefined> = {},
): Promise<Answer> {
  const parameters = {
    grant_type: 'client_credentials',
    scope: 'PIS',
    client_id: context.options.clientId,
    ...form,
  };
  return send(context, { method: 'POST', path: '/oauth2/token/1.0', form: defined(parameters) });
}

/** The parameters that have a value. */
function defined(parameters: Record<string, string | undefined>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(parameters).filter((entry): entry is [string, string] => entry[1] !== undefined),
  );
}

export interface Initiation {
  readonly path: string;
  readonly body: unknown;
  /** The general API's Country header. */
  readonly country?: string;
  readonly headers?: Record<string, string>;
}

/** A JSON call with the common headers (and `extra` ones). */
export function postJson(
  context: CheckContext,
  path: string,
  token: string,
  json: unknown,
  extra: Record<string, string> = {},
): Promise<Answer> {
  return send(context, { method: 'POST', path, headers: { ...tppHeaders(context, token), ...extra }, json });
}

/** Step 2 (spec rows 6 and 7). */
export function initiate(context: CheckContext, token: string, initiation: Initiation): Promise<Answer> {
  const country: Record<string, string> =
    initiation.country === undefined ? {} : { Country: initiation.country };
  return postJson(context, initiation.path, token, initiation.body, { ...country, ...initiation.headers });
}

/** Step 3, redirect (spec row 8): the authorize request, as the app sends it unless `query` says otherwise. */
export function requestAuthorize(
  context: CheckContext,
  scope: string,
  query: Record<string, string | undefined> = {},
  path = '/oauth2/authorize/1.0',
): Promise<Answer> {
  const parameters: Record<string, string | undefined> = {
    response_type: 'code',
    scope,
    client_id: context.options.clientId,
    state: `check-${newRequestId()}`,
    redirect_uri: context.options.redirectUri,
    ...query,
  };
  return send(context, { method: 'GET', path: `${path}?${new URLSearchParams(defined(parameters))}` });
}

/** The query of a 302 to the app's redirect URI (spec row 8: "Location = redirect URI plus query"). */
export function redirectQuery(context: CheckContext, answer: Answer, what: string): URLSearchParams {
  const expected = `302 to the redirect URI with ${what}`;
  const location = answer.headers.get('location');
  if (answer.status !== 302 || location === null) throw new Deviation(expected, summary(answer));
  let target: URL;
  try {
    target = new URL(location);
  } catch {
    throw new Deviation(expected, `Location ${clip(location)}`);
  }
  const registered = new URL(context.options.redirectUri);
  if (target.origin + target.pathname !== registered.origin + registered.pathname) {
    throw new Deviation(expected, `Location ${clip(location)}`);
  }
  return target.searchParams;
}

/** Step 3, code exchange (spec row 1, authorization code). */
export function requestCodeToken(
  context: CheckContext,
  scope: string,
  code: string,
  form: Record<string, string> = {},
): Promise<Answer> {
  return send(context, {
    method: 'POST',
    path: '/oauth2/token/1.0',
    form: {
      grant_type: 'authorization_code',
      scope,
      client_id: context.options.clientId,
      code,
      redirect_uri: context.options.redirectUri,
      ...form,
    },
  });
}

/** Step 4 (spec row 12). */
export function execute(context: CheckContext, product: string, id: string, token: string): Promise<Answer> {
  return send(context, {
    method: 'PUT',
    path: `/psd2/v1/payments/${product}/${encodeURIComponent(id)}`,
    headers: tppHeaders(context, token),
  });
}

/** Step 5 (spec row 13). */
export function readStatus(
  context: CheckContext,
  product: string,
  id: string,
  token: string,
  country: string | undefined,
): Promise<Answer> {
  return send(context, {
    method: 'GET',
    path: `/psd2/v1/payments/${product}/${encodeURIComponent(id)}/status`,
    headers: { ...tppHeaders(context, token), ...(country === undefined ? {} : { Country: country }) },
  });
}

/** A step another check covers, taken as setup: refused, the check that needed it is skipped. */
function setupFailed(what: string, answer: Answer): never {
  throw new Skip(`setup: ${what} answered ${summary(answer)}`);
}

function stringAt(answer: Answer, field: string): string | undefined {
  const value = (answer.json as Record<string, unknown> | undefined)?.[field];
  return answer.status === 200 && typeof value === 'string' && value !== '' ? value : undefined;
}

/** A new payment in ACTC. */
export async function setupPayment(context: CheckContext, initiation: Initiation): Promise<string> {
  const answer = await initiate(context, context.fact('clientToken'), initiation);
  return stringAt(answer, 'paymentId') ?? setupFailed('initiation', answer);
}

/** An authorization code for the scope. */
export async function setupCode(context: CheckContext, scope: string): Promise<string> {
  const answer = await requestAuthorize(context, scope);
  let code: string | null = null;
  try {
    code = redirectQuery(context, answer, 'code').get('code');
  } catch (error) {
    if (!(error instanceof Deviation)) throw error;
  }
  return code || setupFailed(`authorize ${scope}`, answer);
}

/** A PSU token for the scope, through the redirect flow. */
export async function setupPsuToken(context: CheckContext, scope: string): Promise<string> {
  const answer = await requestCodeToken(context, scope, await setupCode(context, scope));
  return stringAt(answer, 'access_token') ?? setupFailed(`the code exchange for ${scope}`, answer);
}
