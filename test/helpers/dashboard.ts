// Walks the PSU's permission dashboard through inject(), as a browser would: the login form's CSRF
// cookie, the session cookie, the forms' CSRF token; and reads the rows a page shows.
import { TEST_PSU_PASSWORD } from '../../src/sandbox/seed.ts';
import type { Gateway } from './gateway.ts';
import { type Answer, call } from './http.ts';

export interface Browser {
  csrfCookie?: string;
  session?: string;
}

function remember(browser: Browser, answer: Answer): void {
  const setCookie = [answer.headers['set-cookie'] ?? []].flat().map(String);
  for (const cookie of setCookie) {
    const csrf = /^psu_csrf=([^;]*)/.exec(cookie)?.[1];
    if (csrf !== undefined) browser.csrfCookie = csrf;
    const session = /^psu_session=([^;]*)/.exec(cookie)?.[1];
    if (session !== undefined) browser.session = session;
  }
}

function cookies(browser: Browser): Record<string, string> {
  const parts = [
    ...(browser.csrfCookie === undefined ? [] : [`psu_csrf=${browser.csrfCookie}`]),
    ...(browser.session === undefined ? [] : [`psu_session=${browser.session}`]),
  ];
  return parts.length === 0 ? {} : { cookie: parts.join('; ') };
}

export async function open(gateway: Gateway, browser: Browser, query = ''): Promise<Answer> {
  const answer = await call(gateway.app, 'GET', `/psu/dashboard${query}`, { headers: cookies(browser) });
  remember(browser, answer);
  return answer;
}

export async function submit(
  gateway: Gateway,
  browser: Browser,
  path: string,
  fields: Record<string, string>,
  from: { remoteAddress?: string; headers?: Record<string, string> } = {},
): Promise<Answer> {
  const answer = await call(gateway.app, 'POST', `/psu/dashboard${path}`, {
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...cookies(browser), ...from.headers },
    payload: new URLSearchParams(fields).toString(),
    ...(from.remoteAddress === undefined ? {} : { remoteAddress: from.remoteAddress }),
  });
  remember(browser, answer);
  return answer;
}

/** The CSRF token a page's forms carry. */
export function csrfOf(answer: Answer): string {
  return /name="csrf" value="([^"]*)"/.exec(String(answer.body))![1]!;
}

/** A browser logged in as the PSU (the built-in login, the test password). */
export async function loggedIn(gateway: Gateway, psuId: string): Promise<Browser> {
  const browser: Browser = {};
  const page = await open(gateway, browser);
  const answer = await submit(gateway, browser, '/login', {
    csrf: csrfOf(page),
    psu_id: psuId,
    password: TEST_PSU_PASSWORD,
  });
  if (answer.status !== 302) throw new Error(`login answered ${answer.status}`);
  return browser;
}

/** The rows a dashboard shows: each consent's or payment's id and its fields, in page order. */
export function rowsOf(html: string, kind: 'consent' | 'payment') {
  const rows: { id: string; fields: Record<string, string> }[] = [];
  for (const match of html.matchAll(
    new RegExp(`<section data-${kind}="([^"]*)">([\\s\\S]*?)</section>`, 'g'),
  )) {
    const fields: Record<string, string> = {};
    for (const field of match[2]!.matchAll(/<dd[^>]*data-field="([^"]*)">([^<]*)<\/dd>/g))
      fields[field[1]!] = field[2]!;
    rows.push({ id: match[1]!, fields });
  }
  return rows;
}
