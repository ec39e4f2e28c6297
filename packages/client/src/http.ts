// The client's transport: one fetch per call, the answer parsed by its content type, and TppError for
// callers that expect success. Dependency-free and Web-standard only (fetch, Headers, URLSearchParams,
// crypto.randomUUID), so that the built client runs in Node, Deno, Bun and browsers alike.
import type { ApiErrorBody, OAuthErrorBody } from './answers.ts';

export interface HttpAnswer<T = unknown> {
  /** The request that was answered, e.g. `POST` and the absolute URL. */
  readonly method: string;
  readonly url: string;
  readonly status: number;
  readonly headers: Headers;
  /** T when the status is the call's success; otherwise the error body (see `expectOk`, `TppError`). */
  readonly body: T;
}

export interface RequestOptions {
  readonly headers?: Record<string, string>;
  readonly json?: unknown;
  readonly form?: Record<string, string>;
  /**
   * Sent as Idempotency-Key (draft-ietf-httpapi-idempotency-key-header): a retry with the same key and
   * body is answered as the first request was. TPP-Request-ID is only a correlation id, fresh per call.
   */
  readonly idempotencyKey?: string;
}

/** A fresh id for TPP-Request-ID and friends (Web Crypto: Node >= 19, browsers, Deno, Bun). */
export function newRequestId(): string {
  return globalThis.crypto.randomUUID();
}

/**
 * The server answered what the call did not expect. `status` and `body` are the answer's (the API
 * error body `{httpCode, httpMessage, moreInformation, tppMessages}`, the OAuth `{error,
 * error_description}`, or a decoupled result such as `{result: "USER_CANCEL"}`); `code` is its
 * machine-readable code, so that callers never parse the message.
 */
export class TppError extends Error {
  override readonly name = 'TppError';

  constructor(
    /** What was asked, e.g. "initiate payment". */
    readonly operation: string,
    readonly status: number,
    readonly body: unknown,
    readonly answer?: HttpAnswer,
  ) {
    super(`${operation} answered ${status}: ${summary(body)}`);
  }

  /** The first tppMessages code, the OAuth error, or the decoupled result. */
  get code(): string | undefined {
    return codeOf(this.body);
  }
}

function codeOf(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const api = body as Partial<ApiErrorBody>;
  const oauth = body as Partial<OAuthErrorBody> & { result?: string };
  return api.tppMessages?.[0]?.code ?? oauth.error ?? oauth.result;
}

/** One line about an error body: its code and text, or the start of whatever it is. */
function summary(body: unknown): string {
  const code = codeOf(body);
  if (code !== undefined) {
    const api = body as Partial<ApiErrorBody>;
    const oauth = body as Partial<OAuthErrorBody>;
    const text = api.tppMessages?.[0]?.text ?? oauth.error_description;
    return text === undefined ? code : `${code}: ${text}`;
  }
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  return text === '' || text === undefined ? '(empty body)' : text.slice(0, 200);
}

/** The body of a 200 answer, or a TppError carrying the answer. */
export function expectOk<T>(answer: HttpAnswer<T>, operation: string): T {
  return expectStatus(answer, 200, operation);
}

/** A created resource (a consent): 201, or 200 from gateways before issue 40. */
export const CREATED: readonly number[] = [201, 200];

/** The body of an answer with the expected status (or one of them), or a TppError carrying the answer. */
export function expectStatus<T>(
  answer: HttpAnswer<T>,
  status: number | readonly number[],
  operation: string,
): T {
  const expected = typeof status === 'number' ? [status] : status;
  if (!expected.includes(answer.status)) throw new TppError(operation, answer.status, answer.body, answer);
  return answer.body;
}

/**
 * What every area of the client calls through: the app it acts as, and requests to the gateway.
 * TppClient extends it; the areas (decoupled, baskets, onboarding, consents, accounts) are given it.
 */
export class HttpCaller {
  constructor(
    readonly baseUrl: string,
    readonly clientId: string,
    readonly redirectUri: string,
    /** The PSU's device address, sent on every call as PSU-IP-Address (live requires it on PSU-present calls). */
    readonly psuIpAddress = '192.0.2.1',
  ) {}

  /** A call to a path under the base URL, or to an absolute URL the gateway handed out (decoupled links). */
  async request<T = unknown>(
    method: string,
    pathOrUrl: string,
    options: RequestOptions = {},
  ): Promise<HttpAnswer<T>> {
    const url = /^https?:\/\//.test(pathOrUrl) ? pathOrUrl : this.baseUrl + pathOrUrl;
    const headers: Record<string, string> = { Accept: 'application/json', ...options.headers };
    if (options.idempotencyKey !== undefined) headers['Idempotency-Key'] = options.idempotencyKey;
    let body: string | undefined;
    if (options.json !== undefined) {
      headers['Content-Type'] = 'application/json';
      body = JSON.stringify(options.json);
    } else if (options.form !== undefined) {
      headers['Content-Type'] = 'application/x-www-form-urlencoded';
      body = new URLSearchParams(options.form).toString();
    }
    const response = await this.send(url, { method, headers, body });
    const type = response.headers.get('content-type') ?? '';
    const text = response.text;
    return {
      method,
      url,
      status: response.status,
      headers: response.headers,
      body: (type.includes('json') && text !== '' ? JSON.parse(text) : text) as T,
    };
  }

  /** One request on the wire (fetch, redirects not followed); a subclass may send it otherwise. */
  protected async send(
    url: string,
    init: { method: string; headers: Record<string, string>; body: string | undefined },
  ): Promise<{ status: number; headers: Headers; text: string }> {
    const response = await fetchOnce(url, { ...init, redirect: 'manual' });
    return { status: response.status, headers: response.headers, text: await response.text() };
  }

  /** Fresh TPP-Request-ID and TPP-Transaction-ID (the sandbox accepts any values). */
  requestIds(): Record<string, string> {
    return { 'TPP-Request-ID': newRequestId(), 'TPP-Transaction-ID': newRequestId() };
  }

  /** TPP headers of payment and account calls, with fresh request and transaction ids. */
  tppHeaders(token: string, extra: Record<string, string> = {}): Record<string, string> {
    return {
      'X-Gateway-Client-Id': this.clientId,
      'PSU-IP-Address': this.psuIpAddress,
      ...this.requestIds(),
      Authorization: `Bearer ${token}`,
      ...extra,
    };
  }

  /** A token request (`POST /oauth2/token/1.0`, a form). */
  token<T = unknown>(form: Record<string, string>): Promise<HttpAnswer<T>> {
    return this.request<T>('POST', '/oauth2/token/1.0', { form });
  }

  /**
   * A GET of account information with the PSU's token. `psuPresent: false` leaves out PSU-IP-Address:
   * a read the TPP makes on its own, which counts against the consent's daily frequency.
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

/** fetch, with a network failure said in one line that names the request (fetch says only "fetch failed"). */
async function fetchOnce(url: string, init: RequestInit): Promise<Response> {
  try {
    return await fetch(url, init);
  } catch (error) {
    const cause = (error as { cause?: { message?: string } }).cause?.message;
    throw new Error(`${init.method} ${url} failed: ${cause ?? (error as Error).message}`, { cause: error });
  }
}
