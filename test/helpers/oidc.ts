// The bank's OpenID Connect provider in tests: the stand-in's accounts, the adapter's settings for it,
// and a browser without the browser for what Chromium cannot be made to do (foreign callbacks, replays).
import type { StandInProvider } from '../stand-ins/oidc-provider.ts';
import { tlsFetch } from './tls.ts';

/** The claim that names the PSU (PSU_OIDC_ID_CLAIM). */
export const CLAIM = 'personal_number';
const TOLVAN = '191212121212';

/** Accounts at the provider, by the name typed on its login page. */
export const PROVIDER_ACCOUNTS = {
  tolvan: { claims: { [CLAIM]: TOLVAN } },
  // A customer of the bank, but not the holder of the debtor account.
  agda: { claims: { [CLAIM]: '198112289874' } },
  // Someone the provider knows and the PSU directory does not.
  stranger: { claims: { [CLAIM]: '194007283466' } },
  // The claim only in the userinfo answer, as some providers put extra claims.
  'userinfo-tolvan': { claims: {}, userinfoOnly: { [CLAIM]: TOLVAN } },
  nameless: { claims: {} },
};
export const settingsOf = (provider: StandInProvider) => ({
  issuer: provider.issuer,
  clientId: provider.clientId,
  clientSecret: provider.clientSecret,
  idClaim: CLAIM,
});

export interface Fetched {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
}

/**
 * A browser without the browser: follows redirects itself, with one cookie jar per host name (cookies
 * ignore ports: the gateway and the provider on 127.0.0.1 share one, as in Chromium).
 */
export class Agent {
  private readonly jar = new Map<string, { host: string; name: string; value: string; path: string }>();

  /** `ca`: the issuer of a gateway's HTTPS certificate that this browser trusts (a live gateway). */
  constructor(private readonly ca?: string) {}

  async fetch(url: URL, form?: Record<string, string>): Promise<Fetched> {
    const cookie = [...this.jar.values()]
      .filter((c) => c.host === url.hostname && url.pathname.startsWith(c.path))
      .map((c) => `${c.name}=${c.value}`)
      .join('; ');
    const method = form === undefined ? 'GET' : 'POST';
    const headers = {
      ...(cookie === '' ? {} : { cookie }),
      ...(form === undefined ? {} : { 'content-type': 'application/x-www-form-urlencoded' }),
    };
    const body = form === undefined ? undefined : new URLSearchParams(form).toString();
    const answer =
      url.protocol === 'https:' && this.ca !== undefined
        ? await tlsFetch(url, { method, ca: this.ca, headers, ...(body === undefined ? {} : { body }) })
        : await fetch(url, {
            method,
            redirect: 'manual',
            headers,
            ...(body === undefined ? {} : { body }),
          }).then(async (response) => ({
            status: response.status,
            headers: response.headers,
            text: await response.text(),
          }));
    for (const line of answer.headers.getSetCookie()) this.keep(url, line);
    return answer;
  }

  /**
   * Opens url (posting form), then follows redirects until an answer that is none, or until the next
   * URL is one `stop` accepts: that one is not fetched.
   */
  async go(
    url: string | URL,
    options: { form?: Record<string, string>; stop?: (next: URL) => boolean } = {},
  ): Promise<{ url: URL; answer: Fetched | undefined }> {
    let next = new URL(url);
    let form = options.form;
    for (let hop = 0; hop < 12; hop++) {
      if (options.stop?.(next)) return { url: next, answer: undefined };
      const answer = await this.fetch(next, form);
      const location = answer.headers.get('location');
      if (answer.status < 300 || answer.status > 399 || location === null) return { url: next, answer };
      next = new URL(location, next);
      form = undefined;
    }
    throw new Error(`more than 12 redirects from ${url}`);
  }

  cookie(name: string): string | undefined {
    return [...this.jar.values()].find((c) => c.name === name)?.value;
  }

  private keep(url: URL, line: string): void {
    const [pair = '', ...attributes] = line.split(';').map((part) => part.trim());
    const name = pair.slice(0, pair.indexOf('='));
    const value = pair.slice(pair.indexOf('=') + 1);
    const attribute = (key: string) =>
      attributes.find((a) => a.toLowerCase().startsWith(`${key}=`))?.slice(key.length + 1);
    const path = attribute('path') ?? '/';
    const key = `${url.hostname} ${path} ${name}`;
    const expires = attribute('expires');
    const gone = attribute('max-age') === '0' || (expires !== undefined && Date.parse(expires) <= Date.now());
    if (gone) this.jar.delete(key);
    else this.jar.set(key, { host: url.hostname, name, value, path });
  }
}

export const queryOf = (url: URL) => Object.fromEntries(url.searchParams);
