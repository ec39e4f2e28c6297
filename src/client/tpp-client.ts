// A typed TPP client for the payment flow of the contract (spec steps 1-5) and account information,
// over real HTTP with fetch.
// Used by the demo, the end-to-end tests and the benchmark.
import { randomUUID } from 'node:crypto';

export interface HttpAnswer<T = unknown> {
  readonly status: number;
  readonly headers: Headers;
  readonly body: T;
}

export interface TokenAnswer {
  readonly access_token: string;
  readonly expires_in: number;
  readonly token_type: string;
  /** Account access only. */
  readonly refresh_token?: string;
}

export interface ConsentAnswer {
  readonly consentId: string;
  readonly consentStatus: string;
}

export interface InitiationAnswer {
  readonly paymentId: string;
  readonly scaMethods: {
    scaMethodType: string;
    _links: { authorization: { href: string; name: string; type: string }[] };
  }[];
  readonly transactionStatus: string;
}

export interface StatusAnswer {
  readonly paymentId: string;
  readonly transactionStatus: string;
}

export interface InitiateOptions {
  /** Path after the base URL, e.g. /psd2/v1/payments/sepa-credit-transfer. */
  readonly path: string;
  readonly body: unknown;
  readonly country?: string;
  readonly headers?: Record<string, string>;
}

export class TppClient {
  constructor(
    readonly baseUrl: string,
    readonly clientId: string,
    readonly redirectUri: string,
    /** The PSU's device address, sent on every call as PSU-IP-Address (live requires it on PSU-present calls). */
    readonly psuIpAddress = '192.0.2.1',
  ) {}

  async request<T = unknown>(
    method: string,
    path: string,
    options: { headers?: Record<string, string>; json?: unknown; form?: Record<string, string> } = {},
  ): Promise<HttpAnswer<T>> {
    const headers: Record<string, string> = { Accept: 'application/json', ...options.headers };
    let body: string | undefined;
    if (options.json !== undefined) {
      headers['Content-Type'] = 'application/json';
      body = JSON.stringify(options.json);
    } else if (options.form !== undefined) {
      headers['Content-Type'] = 'application/x-www-form-urlencoded';
      body = new URLSearchParams(options.form).toString();
    }
    const response = await fetch(this.baseUrl + path, { method, headers, body, redirect: 'manual' });
    const text = await response.text();
    const type = response.headers.get('content-type') ?? '';
    return {
      status: response.status,
      headers: response.headers,
      body: (type.includes('json') && text !== '' ? JSON.parse(text) : text) as T,
    };
  }

  /** TPP headers of payment calls, with fresh request and transaction ids. */
  tppHeaders(token: string, extra: Record<string, string> = {}): Record<string, string> {
    return {
      'X-Gateway-Client-Id': this.clientId,
      'PSU-IP-Address': this.psuIpAddress,
      'TPP-Request-ID': randomUUID(),
      'TPP-Transaction-ID': randomUUID(),
      Authorization: `Bearer ${token}`,
      ...extra,
    };
  }

  /** Step 1: a client-credentials token. */
  async clientCredentialsToken(scope = 'PIS'): Promise<string> {
    const answer = await this.request<TokenAnswer>('POST', '/oauth2/token/1.0', {
      form: { grant_type: 'client_credentials', scope, client_id: this.clientId },
    });
    return expectOk(answer, 'client credentials token').access_token;
  }

  /** Step 2: initiate a payment. */
  initiate(token: string, options: InitiateOptions): Promise<HttpAnswer<InitiationAnswer>> {
    const extra = {
      ...(options.country === undefined ? {} : { Country: options.country }),
      ...options.headers,
    };
    return this.request<InitiationAnswer>('POST', options.path, {
      headers: this.tppHeaders(token, extra),
      json: options.body,
    });
  }

  /** Step 3 (redirect flow): the authorization request; answers the query of the redirect's Location. */
  async authorize(
    scope: string,
    state: string,
    extra: Record<string, string> = {},
  ): Promise<URLSearchParams> {
    const query = new URLSearchParams({
      response_type: 'code',
      scope,
      client_id: this.clientId,
      state,
      redirect_uri: this.redirectUri,
      ...extra,
    });
    const answer = await this.request('GET', `/oauth2/authorize/1.0?${query}`);
    const location = answer.headers.get('location');
    if (answer.status !== 302 || location === null) {
      throw new Error(`authorize answered ${answer.status}: ${JSON.stringify(answer.body)}`);
    }
    return new URL(location).searchParams;
  }

  /** Step 3 (redirect flow): the code for a PSU token. */
  exchangeCode(
    scope: string,
    code: string,
    extra: Record<string, string> = {},
  ): Promise<HttpAnswer<TokenAnswer>> {
    return this.request<TokenAnswer>('POST', '/oauth2/token/1.0', {
      form: {
        grant_type: 'authorization_code',
        scope,
        client_id: this.clientId,
        code,
        redirect_uri: this.redirectUri,
        ...extra,
      },
    });
  }

  /** Step 4: execute with the PSU token. */
  execute(product: string, paymentId: string, psuToken: string, prefix = '/psd2/v1/payments') {
    return this.request<StatusAnswer>('PUT', `${prefix}/${product}/${paymentId}`, {
      headers: this.tppHeaders(psuToken),
    });
  }

  /** Step 5: the status, with either token. */
  status(product: string, paymentId: string, token: string, country: string, prefix = '/psd2/v1/payments') {
    const headers = this.tppHeaders(token, prefix === '/psd2/v1/payments' ? { Country: country } : {});
    return this.request<StatusAnswer>('GET', `${prefix}/${product}/${paymentId}/status`, { headers });
  }

  /** The redirect flow for a scope where the PSU approves at once (the sandbox): the PSU's tokens. */
  async authorizeScope(scope: string): Promise<TokenAnswer> {
    const query = await this.authorize(scope, randomUUID());
    const code = query.get('code');
    if (code === null) throw new Error(`authorize gave no code: ${query}`);
    return expectOk(await this.exchangeCode(scope, code), 'code exchange');
  }

  /** Steps 3 and 4 of the redirect flow for a payment: authorize, exchange the code, execute. */
  async authorizeAndExecute(product: string, paymentId: string): Promise<HttpAnswer<StatusAnswer>> {
    const token = (await this.authorizeScope(`PIS:${paymentId}`)).access_token;
    return this.execute(product, paymentId, token);
  }

  /** Account information: asks for a consent with a client-credentials token of scope AIS. */
  createConsent(
    token: string,
    options: { body?: unknown; prefix?: string; headers?: Record<string, string> } = {},
  ): Promise<HttpAnswer<ConsentAnswer>> {
    return this.request<ConsentAnswer>('POST', `${options.prefix ?? '/psd2/v1'}/consents`, {
      headers: this.tppHeaders(token, options.headers),
      json: options.body ?? { access: 'ALL_ACCOUNTS' },
    });
  }

  /**
   * Reads account information with the PSU's token. `psuPresent: false` leaves out PSU-IP-Address: a
   * read the TPP makes on its own, which counts against the consent's daily frequency.
   */
  read<T = unknown>(
    path: string,
    token: string,
    options: { psuPresent?: boolean } = {},
  ): Promise<HttpAnswer<T>> {
    const headers = this.tppHeaders(token);
    if (options.psuPresent === false) delete headers['PSU-IP-Address'];
    return this.request<T>('GET', path, { headers });
  }
}

export function expectOk<T>(answer: HttpAnswer<T>, what: string): T {
  if (answer.status !== 200)
    throw new Error(`${what} answered ${answer.status}: ${JSON.stringify(answer.body)}`);
  return answer.body;
}
