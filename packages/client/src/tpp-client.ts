// A typed TPP client over real HTTP with fetch: the payment flow of the contract (spec steps 1-5), and
// through its areas the decoupled authorization, signing baskets, onboarding, consents, accounts and
// card accounts. Calls answer an HttpAnswer (status, headers, typed body) so that failures can be
// inspected; the flow shortcuts (clientCredentialsToken, authorizeScope, decoupled.authorize) expect
// success and throw a TppError carrying the answer otherwise. Used by the demo, the tests and the bench.
import { AccountsApi, CardAccountsApi } from './accounts.ts';
import type {
  ConsentAnswer,
  ExecuteAnswer,
  InitiationAnswer,
  InitiationRequest,
  NotificationsAnswer,
  SandboxClock,
  SandboxTestData,
  StatusAnswer,
  TokenAnswer,
} from './answers.ts';
import { BasketsApi } from './baskets.ts';
import { type ConsentOptions, ConsentsApi } from './consents.ts';
import { DecoupledApi } from './decoupled.ts';
import { expectOk, type HttpAnswer, HttpCaller, newRequestId, TppError } from './http.ts';
import type { NotificationKeySet } from './notifications.ts';
import { OnboardingApi } from './onboarding.ts';

export interface InitiateOptions {
  /** Path after the base URL, e.g. /psd2/v1/payments/sepa-credit-transfer. */
  readonly path: string;
  readonly body: InitiationRequest;
  /** The Country header of the general API (/psd2/v1/payments). */
  readonly country?: string;
  readonly headers?: Record<string, string>;
  /** Sent as Idempotency-Key: a retry with the same key and body gets the first payment again. */
  readonly idempotencyKey?: string;
}

const GENERAL_PAYMENTS = '/psd2/v1/payments';

export class TppClient extends HttpCaller {
  readonly decoupled = new DecoupledApi(this);
  readonly baskets = new BasketsApi(this);
  readonly onboarding = new OnboardingApi(this);
  readonly consents = new ConsentsApi(this);
  readonly accounts = new AccountsApi(this);
  readonly cardAccounts = new CardAccountsApi(this);

  /** The sandbox's test PSUs, accounts and scenarios. */
  sandboxTestData(): Promise<HttpAnswer<SandboxTestData>> {
    return this.request<SandboxTestData>('GET', '/sandbox/test-data');
  }

  /** The app's sandbox clock, with a client-credentials token of the app (sandbox only). */
  sandboxClock(token: string): Promise<HttpAnswer<SandboxClock>> {
    return this.request<SandboxClock>('GET', '/sandbox/clock', {
      headers: { Authorization: `Bearer ${token}` },
    });
  }

  /**
   * Moves the app's sandbox clock forward by `advance` (an ISO 8601 duration: P2D, PT36H); what has come
   * due (future-dated payments, settlements, consents' expiry) runs before it answers (sandbox only).
   */
  advanceSandboxClock(token: string, advance: string): Promise<HttpAnswer<SandboxClock>> {
    return this.request<SandboxClock>('POST', '/sandbox/clock', {
      headers: { Authorization: `Bearer ${token}` },
      json: { advance },
    });
  }

  /** The app's recent status notifications, newest first, with every delivery attempt (a PIS or AIS token). */
  notifications(token: string, limit?: number): Promise<HttpAnswer<NotificationsAnswer>> {
    return this.read<NotificationsAnswer>(
      `/psd2/v1/notifications${limit === undefined ? '' : `?limit=${limit}`}`,
      token,
    );
  }

  /** The bank's notification signing keys (GET /.well-known/jwks.json), for verifyNotification. */
  notificationKeys(): Promise<HttpAnswer<NotificationKeySet>> {
    return this.request<NotificationKeySet>('GET', '/.well-known/jwks.json');
  }

  /** Step 1: the client-credentials token request of the app (PIS for payments, AIS for consents). */
  clientCredentials(scope = 'PIS'): Promise<HttpAnswer<TokenAnswer>> {
    return this.token<TokenAnswer>({ grant_type: 'client_credentials', scope, client_id: this.clientId });
  }

  /** Step 1: the client-credentials token itself. */
  async clientCredentialsToken(scope = 'PIS'): Promise<string> {
    return expectOk(await this.clientCredentials(scope), 'client credentials token').access_token;
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
      idempotencyKey: options.idempotencyKey,
    });
  }

  /**
   * Step 3 (redirect flow): where to send the PSU's browser. Live, the PSU logs in and approves there;
   * then the browser lands on the redirect URI with `code` and `state`.
   */
  authorizationUrl(scope: string, state: string, extra: Record<string, string> = {}): string {
    const query = new URLSearchParams({
      response_type: 'code',
      scope,
      client_id: this.clientId,
      state,
      redirect_uri: this.redirectUri,
      ...extra,
    });
    return `${this.baseUrl}/oauth2/authorize/1.0?${query}`;
  }

  /**
   * Step 3 (redirect flow) in the sandbox, where the PSU approves at once: the authorization request as
   * answered, a 302 whose Location carries the code. (Browsers hide a redirect's Location from fetch.)
   */
  authorizationRequest(
    scope: string,
    state: string,
    extra: Record<string, string> = {},
  ): Promise<HttpAnswer<unknown>> {
    return this.request('GET', this.authorizationUrl(scope, state, extra));
  }

  /**
   * Step 3 (redirect flow): the query of the redirect's Location: `code` and `state`, or `error` and
   * `error_description`. Anything but a redirect is a TppError.
   */
  async authorize(
    scope: string,
    state: string,
    extra: Record<string, string> = {},
  ): Promise<URLSearchParams> {
    const answer = await this.authorizationRequest(scope, state, extra);
    const location = answer.headers.get('location');
    if (answer.status !== 302 || location === null) {
      throw new TppError('authorize', answer.status, answer.body, answer);
    }
    return new URL(location).searchParams;
  }

  /** Step 3 (redirect flow): the code for a PSU token. */
  exchangeCode(
    scope: string,
    code: string,
    extra: Record<string, string> = {},
  ): Promise<HttpAnswer<TokenAnswer>> {
    return this.token<TokenAnswer>({
      grant_type: 'authorization_code',
      scope,
      client_id: this.clientId,
      code,
      redirect_uri: this.redirectUri,
      ...extra,
    });
  }

  /** Step 4: execute with the PSU token (a basket: baskets.execute). */
  execute(
    product: string,
    paymentId: string,
    psuToken: string,
    prefix = GENERAL_PAYMENTS,
  ): Promise<HttpAnswer<ExecuteAnswer>> {
    return this.request<ExecuteAnswer>('PUT', `${prefix}/${product}/${paymentId}`, {
      headers: this.tppHeaders(psuToken),
    });
  }

  /** Step 5: the status, with either token; the general API takes the country as a header. */
  status(
    product: string,
    paymentId: string,
    token: string,
    country: string,
    prefix = GENERAL_PAYMENTS,
  ): Promise<HttpAnswer<StatusAnswer>> {
    const headers = this.tppHeaders(token, prefix === GENERAL_PAYMENTS ? { Country: country } : {});
    return this.request<StatusAnswer>('GET', `${prefix}/${product}/${paymentId}/status`, { headers });
  }

  /**
   * The redirect flow for a scope where the PSU approves at once (the sandbox): the PSU's tokens. A
   * refusal in the redirect (`error=access_denied`) or a failed exchange is a TppError.
   */
  async authorizeScope(scope: string): Promise<TokenAnswer> {
    const query = await this.authorize(scope, newRequestId());
    const code = query.get('code');
    if (code === null) throw new TppError('authorize', 302, Object.fromEntries(query));
    return expectOk(await this.exchangeCode(scope, code), 'code exchange');
  }

  /** Steps 3 and 4 of the redirect flow for a payment: authorize, exchange the code, execute. */
  async authorizeAndExecute(product: string, paymentId: string): Promise<HttpAnswer<ExecuteAnswer>> {
    const token = (await this.authorizeScope(`PIS:${paymentId}`)).access_token;
    return this.execute(product, paymentId, token);
  }

  /** Account information: asks for a consent with a client-credentials token of scope AIS (consents.create). */
  createConsent(token: string, options: ConsentOptions = {}): Promise<HttpAnswer<ConsentAnswer>> {
    return this.consents.create(token, options);
  }
}
