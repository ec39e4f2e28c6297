// Walks the live login and consent pages through inject(), as a browser would post them.
import { TEST_PSU_PASSWORD } from '../../src/sandbox/seed.ts';
import type { Gateway } from './gateway.ts';
import { type Answer, call } from './http.ts';

export interface PageState {
  readonly answer: Answer;
  readonly html: string;
  readonly form: { request: string; csrf: string } | undefined;
  readonly cookie: string | undefined;
}

function field(html: string, name: string): string | undefined {
  return new RegExp(`name="${name}" value="([^"]*)"`).exec(html)?.[1];
}

export function pageOf(answer: Answer, cookie?: string): PageState {
  const html = typeof answer.body === 'string' ? answer.body : '';
  const request = field(html, 'request');
  const csrf = field(html, 'csrf');
  const setCookie = String(answer.headers['set-cookie'] ?? '');
  const fresh = /psu_csrf=([^;]+)/.exec(setCookie)?.[1];
  return {
    answer,
    html,
    form: request === undefined || csrf === undefined ? undefined : { request, csrf },
    cookie: fresh ?? cookie,
  };
}

/** The authorize query of the redirect flow for one scope, to the app's registered redirect URI. */
export function codeParameters(
  app: { clientId: string; redirectUri: string },
  scope: string,
  state: string,
): Record<string, string> {
  return { response_type: 'code', scope, client_id: app.clientId, state, redirect_uri: app.redirectUri };
}

export async function openAuthorize(
  gateway: Gateway,
  parameters: Record<string, string>,
): Promise<PageState> {
  return pageOf(await call(gateway.app, 'GET', `/oauth2/authorize/1.0?${new URLSearchParams(parameters)}`));
}

export async function post(
  gateway: Gateway,
  path: '/psu/login' | '/psu/consent',
  state: PageState,
  fields: Record<string, string>,
  overrides: { cookie?: string; csrf?: string; remoteAddress?: string } = {},
) {
  const form = {
    request: state.form?.request ?? '',
    csrf: overrides.csrf ?? state.form?.csrf ?? '',
    ...fields,
  };
  const cookie = overrides.cookie ?? state.cookie;
  const answer = await call(gateway.app, 'POST', path, {
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      ...(cookie === undefined ? {} : { cookie: `psu_csrf=${cookie}` }),
    },
    payload: new URLSearchParams(form).toString(),
    ...(overrides.remoteAddress === undefined ? {} : { remoteAddress: overrides.remoteAddress }),
  });
  return pageOf(answer, cookie);
}

export function redirectQuery(state: PageState): Record<string, string> {
  return Object.fromEntries(new URL(String(state.answer.headers.location)).searchParams);
}

/** The live redirect flow for one PIS scope: the PSU logs in and approves; answers the PSU token. */
export async function livePsuToken(
  gateway: Gateway,
  client: {
    clientId: string;
    redirectUri: string;
    exchangeCode: (scope: string, code: string) => Promise<{ body: { access_token: string } }>;
  },
  scope: string,
  psuId: string,
): Promise<string> {
  const login = await openAuthorize(gateway, codeParameters(client, scope, 'live'));
  const consent = await post(gateway, '/psu/login', login, { psu_id: psuId, password: TEST_PSU_PASSWORD });
  const approved = await post(gateway, '/psu/consent', consent, { decision: 'approve' });
  const code = redirectQuery(approved).code;
  if (code === undefined) throw new Error(`no code: ${JSON.stringify(redirectQuery(approved))}`);
  return (await client.exchangeCode(scope, code)).body.access_token;
}
