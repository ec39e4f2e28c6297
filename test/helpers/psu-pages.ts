// Walks the live login and consent pages through inject(), as a browser would post them.
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
  overrides: { cookie?: string; csrf?: string } = {},
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
  });
  return pageOf(answer, cookie);
}

export function redirectQuery(state: PageState): Record<string, string> {
  return Object.fromEntries(new URL(String(state.answer.headers.location)).searchParams);
}
