// Calls of the decoupled flow through inject(), and the e-ID simulator's app (/psu/eid) as the PSU uses it.
import type { Gateway } from './gateway.ts';
import { type Answer, call } from './http.ts';

export function initDecoupled(gateway: Gateway, body: Record<string, unknown>) {
  return call(gateway.app, 'POST', '/decoupled/eid/initAuthorization/2.0', {
    headers: { accept: 'application/json', host: 'gateway.test' },
    json: body,
  });
}

/** POSTs {} (or `json`) to a token or cancel href of an init answer (made relative to the gateway). */
export function postLink(
  gateway: Gateway,
  href: string,
  options: { headers?: Record<string, string>; json?: Record<string, unknown> } = {},
) {
  const url = new URL(href);
  return call(gateway.app, 'POST', url.pathname.slice(gateway.config.basePath.length) + url.search, {
    headers: { accept: 'application/json', ...options.headers },
    json: options.json ?? {},
  });
}

/** What the token and cancel links answer for a session id nobody started. */
export const UNKNOWN_SESSION = {
  status: 400,
  body: { error: 'invalid_request', error_description: 'sessionId is not known' },
};

export interface InitAnswer {
  auto_start_token?: string;
  qr_code?: string;
  sleep_time: number;
  _links: { token: { href: string }; cancel: { href: string } };
}

/** The simulator's e-ID app (/psu/eid) as a phone's browser uses it: its CSRF cookie and form token. */
export interface EidAppVisit {
  readonly cookie: string;
  readonly csrf: string;
}

/** A hidden field of a page's form. */
export function formField(html: string, name: string): string | undefined {
  return new RegExp(`name="${name}" value="([^"]*)"`).exec(html)?.[1];
}

/** What a page shows, as a person reads it: the text without tags, entities decoded, spaces collapsed. */
export function pageText(html: string): string {
  return html
    .replace(/<style>[\s\S]*?<\/style>|<title>[\s\S]*?<\/title>/g, ' ')
    .replace(/<[^>]+>/g, ' ')
    .replace(/&(amp|lt|gt|quot|#39);/g, (_, name: string) =>
      name === 'amp' ? '&' : name === 'lt' ? '<' : name === 'gt' ? '>' : name === 'quot' ? '"' : "'",
    )
    .replace(/\s+/g, ' ')
    .trim();
}

/** Opens the app's first page; answers the page and the CSRF cookie and token it set. */
export async function visitEidApp(gateway: Gateway): Promise<{ page: Answer } & EidAppVisit> {
  const page = await call(gateway.app, 'GET', '/psu/eid');
  const cookie = /psu_csrf=([^;]+)/.exec(String(page.headers['set-cookie'] ?? ''))?.[1];
  const csrf = formField(String(page.body), 'csrf');
  if (cookie === undefined || csrf === undefined) throw new Error(`no CSRF token: ${String(page.body)}`);
  return { page, cookie, csrf };
}

/** Posts one of the app's forms with the visit's cookie and token (either can be overridden). */
export function postEidForm(
  gateway: Gateway,
  path: '/psu/eid/open' | '/psu/eid/identify' | '/psu/eid/sign',
  visit: EidAppVisit,
  fields: Record<string, string>,
  remoteAddress?: string,
) {
  return call(gateway.app, 'POST', path, {
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: `psu_csrf=${visit.cookie}` },
    payload: new URLSearchParams({ csrf: visit.csrf, ...fields }).toString(),
    ...(remoteAddress === undefined ? {} : { remoteAddress }),
  });
}

/** Opens an order in the app by personal number, auto-start token or QR code; answers its sign page. */
export async function openInEidApp(
  gateway: Gateway,
  input: string,
): Promise<{ page: Answer; order: string | undefined } & EidAppVisit> {
  const visit = await visitEidApp(gateway);
  const page = await postEidForm(gateway, '/psu/eid/open', visit, { input });
  return { ...visit, page, order: formField(String(page.body), 'request') };
}

/** Identifies in the app as the PSU with these credentials: the order's page (with its ticket) or a refusal. */
export function identifyInEidApp(
  gateway: Gateway,
  opened: EidAppVisit & { order: string | undefined },
  fields: { psu_id?: string; password?: string },
  remoteAddress?: string,
) {
  const given = Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined));
  return postEidForm(
    gateway,
    '/psu/eid/identify',
    opened,
    { request: opened.order ?? '', ...given },
    remoteAddress,
  );
}

/**
 * Identifies as the PSU with these credentials, then signs (or, with decision decline, cancels) with the
 * ticket the identification handed out; a refused identification is the answer.
 */
export async function signInEidApp(
  gateway: Gateway,
  opened: EidAppVisit & { order: string | undefined },
  fields: { psu_id?: string; password?: string; decision: 'approve' | 'decline' },
  remoteAddress?: string,
): Promise<Answer> {
  const { decision, ...credentials } = fields;
  const identified = await identifyInEidApp(gateway, opened, credentials, remoteAddress);
  if (identified.status !== 200) return identified;
  const ticket = formField(String(identified.body), 'request') ?? '';
  return postEidForm(gateway, '/psu/eid/sign', opened, { request: ticket, decision }, remoteAddress);
}
