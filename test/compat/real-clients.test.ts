// Clients written for the real service work against the sandbox unchanged: each test replays the
// requests such clients send (API-NOTES "What clients of the real service send"), with their paths,
// header names (X-IBM-Client-Id through CLIENT_ID_HEADER_ALIASES), form encodings, bodies and missing
// optional fields, under BASE_PATH=/openbanking and the live token prefix /bb/gls5, and checks what
// those clients read.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { createCa, issueServerCertificate } from '../../src/certificates/issue.ts';
import { addDays, dateIn } from '../../src/domain/dates.ts';
import { localOrigin } from '../../src/main.ts';
import { defaultRedirectUri } from '../../src/sandbox/seed.ts';
import { expectedAccount } from '../helpers/accounts.ts';
import { type Gateway, startGateway } from '../helpers/gateway.ts';
import { errorBody, expectedScaMethods } from '../helpers/http.ts';
import { ACCOUNTS, domestic } from '../helpers/payments.ts';
import { tlsRequest } from '../helpers/tls.ts';

const FORM = 'application/x-www-form-urlencoded;charset=UTF-8';
const AGDA = '198112289874';

interface Answer<T = unknown> {
  status: number;
  headers: Headers;
  body: T;
}

/** A client of the real service: its own header names and encodings, raw fetch, nothing of ours. */
class RealClient {
  constructor(
    readonly origin: string,
    readonly clientId: string,
    readonly redirectUri: string,
  ) {}

  async send<T = Record<string, unknown>>(
    method: string,
    path: string,
    options: {
      headers?: Record<string, string>;
      json?: unknown;
      form?: Record<string, string>;
      raw?: string;
    } = {},
  ): Promise<Answer<T>> {
    const headers: Record<string, string> = { Accept: 'application/json', ...options.headers };
    let body: string | undefined = options.raw;
    if (options.json !== undefined) {
      headers['Content-Type'] = 'application/json';
      body = JSON.stringify(options.json);
    } else if (options.form !== undefined) {
      headers['Content-Type'] = FORM;
      body = new URLSearchParams(options.form).toString();
    }
    const response = await fetch(this.origin + path, { method, headers, body, redirect: 'manual' });
    const text = await response.text();
    const json = (response.headers.get('content-type') ?? '').includes('json') && text !== '';
    return {
      status: response.status,
      headers: response.headers,
      body: (json ? JSON.parse(text) : text) as T,
    };
  }

  /** The headers of an API call as these clients send them: no Country, no PSU-IP-Address. */
  headers(token: string, clientId = this.clientId): Record<string, string> {
    return {
      'X-IBM-Client-Id': clientId,
      Authorization: `Bearer ${token}`,
      'TPP-Request-ID': randomUUID(),
      'TPP-Transaction-ID': randomUUID(),
    };
  }

  /** Token requests go to the live token prefix, form-encoded with a charset. */
  async token(
    form: Record<string, string>,
  ): Promise<Answer<{ access_token: string; refresh_token?: string }>> {
    return this.send('POST', '/bb/gls5/oauth2/token/1.0', { form });
  }

  async clientToken(scope: string, clientId = this.clientId): Promise<string> {
    const answer = await this.token({ grant_type: 'client_credentials', scope, client_id: clientId });
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    return answer.body.access_token;
  }

  /** The redirect flow of the sandbox (the code comes at once), the code exchanged at the live prefix. */
  async authorize(scope: string) {
    const query = new URLSearchParams({
      response_type: 'code',
      scope,
      client_id: this.clientId,
      state: 'st',
      redirect_uri: this.redirectUri,
    });
    const answer = await this.send('GET', `/openbanking/oauth2/authorize/1.0?${query}`);
    const code = new URL(answer.headers.get('location')!).searchParams.get('code')!;
    const tokens = await this.token({
      grant_type: 'authorization_code',
      scope,
      client_id: this.clientId,
      code,
      redirect_uri: this.redirectUri,
    });
    assert.equal(tokens.status, 200, JSON.stringify(tokens.body));
    return tokens.body;
  }

  async consent(aisToken: string, path = '/openbanking/psd2/v1/consents'): Promise<string> {
    const answer = await this.send<{ consentId: string }>('POST', path, {
      headers: this.headers(aisToken),
      json: { access: 'ALL_ACCOUNTS' },
    });
    assert.equal(answer.status, 201, JSON.stringify(answer.body));
    return answer.body.consentId;
  }
}

/** An account as version 2 writes it: bban without the clearing number, AVAILABLE_AMOUNT. */
const v2Account = (row: (typeof ACCOUNTS)[keyof typeof ACCOUNTS], origin: string, balance?: string) =>
  expectedAccount(row, `${origin}/openbanking`, {
    ...(balance === undefined ? {} : { balance }),
    prefix: '/psd2/v2',
    version: 2,
  });

const BALANCE = '12500000.00';

describe('clients of the real service, unchanged', () => {
  let gateway: Gateway;
  let client: RealClient;
  let today: string;

  before(async () => {
    gateway = await startGateway({
      config: {
        basePath: '/openbanking',
        clientIdHeaderAliases: ['x-ibm-client-id'],
        authBasePaths: ['/bb/gls5'],
      },
    });
    client = new RealClient(
      new URL(gateway.url).origin,
      gateway.sandboxApp.clientId,
      gateway.sandboxApp.redirectUri,
    );
    today = dateIn(new Date(), 'Europe/Stockholm');
  });
  after(() => gateway.close());

  test('account information v2: the list, one account, balances, with the real record shapes', async () => {
    const consentId = await client.consent(await client.clientToken('AIS'));
    const { access_token: token } = await client.authorize(`AIS:${consentId}`);
    const list = await client.send<{ accounts: { balances: { balanceType: string; amount: unknown }[] }[] }>(
      'GET',
      '/openbanking/psd2/v2/accounts',
      { headers: client.headers(token) },
    );
    assert.deepEqual(
      [list.status, list.body],
      [
        200,
        {
          accounts: [
            v2Account(ACCOUNTS.tolvan, client.origin, BALANCE),
            v2Account(ACCOUNTS.tolvanSavings, client.origin, BALANCE),
          ],
        },
      ],
    );
    // What these clients do: join clearing number and account number, find the available balance.
    const [first] = list.body.accounts as unknown as { bban: string; clearingNumber: string }[];
    assert.equal(`${first!.clearingNumber}${first!.bban}`, ACCOUNTS.tolvan.bban);
    assert.match(first!.bban, /^\d{9}$/);
    const available = list.body.accounts[0]!.balances.find(
      (balance) => balance.balanceType.toUpperCase() === 'AVAILABLE_AMOUNT',
    );
    assert.deepEqual(available?.amount, { content: BALANCE, currency: 'SEK' });

    const one = await client.send(
      'GET',
      `/openbanking/psd2/v2/accounts/${ACCOUNTS.tolvan.accountId}?withBalance=true`,
      {
        headers: client.headers(token),
      },
    );
    assert.deepEqual([one.status, one.body], [200, v2Account(ACCOUNTS.tolvan, client.origin, BALANCE)]);
    const balances = await client.send(
      'GET',
      `/openbanking/psd2/v2/accounts/${ACCOUNTS.tolvan.accountId}/balances`,
      {
        headers: client.headers(token),
      },
    );
    assert.deepEqual(
      [balances.status, balances.body],
      [
        200,
        {
          accountId: ACCOUNTS.tolvan.accountId,
          balances: v2Account(ACCOUNTS.tolvan, client.origin, BALANCE).balances,
        },
      ],
    );
    // Version 1 is unchanged for its clients: the whole account number, booked and available.
    const v1 = await client.send<{ accounts: { bban: string; balances: { balanceType: string }[] }[] }>(
      'GET',
      '/openbanking/psd2/v1/accounts',
      { headers: client.headers(token) },
    );
    assert.equal(v1.status, 200);
    assert.equal(v1.body.accounts[0]!.bban, ACCOUNTS.tolvan.bban);
    assert.deepEqual(
      v1.body.accounts[0]!.balances.map((balance) => balance.balanceType),
      ['booked', 'available'],
    );
  });

  test('transactions without dateFrom: the last 90 days, on v1 and v2; with dates as asked', async () => {
    const consentId = await client.consent(await client.clientToken('AIS'));
    const { access_token: token } = await client.authorize(`AIS:${consentId}`);
    const from = addDays(today, -90);
    for (const version of ['v1', 'v2']) {
      const path = `/openbanking/psd2/${version}/accounts/${ACCOUNTS.tolvan.accountId}/transactions`;
      const answer = await client.send<{ accountId: string; transactions: { bookingDate: string }[] }>(
        'GET',
        path,
        {
          headers: client.headers(token),
        },
      );
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
      assert.equal(answer.body.accountId, ACCOUNTS.tolvan.accountId);
      const dates = answer.body.transactions.map((transaction) => transaction.bookingDate);
      assert.ok(dates.length > 20, `${version}: the history of the last 90 days`);
      assert.ok(
        dates.every((date) => date >= from && date <= today),
        `${version}: ${dates.at(-1)} .. ${dates[0]}`,
      );
      // The same window asked for explicitly answers the same.
      const asked = await client.send('GET', `${path}?dateFrom=${from}&dateTo=${today}`, {
        headers: client.headers(token),
      });
      assert.deepEqual(asked.body, answer.body);
    }
  });

  test('token requests with a charset in their Content-Type, on every token path', async () => {
    for (const path of [
      '/openbanking/oauth2/token/1.0',
      '/openbanking/redirect/oauth2/token/1.0',
      '/openbanking/refresh/oauth2/token/1.0',
      '/bb/gls5/oauth2/token/1.0',
      '/bb/gls5/redirect/oauth2/token/1.0',
      '/bb/gls5/refresh/oauth2/token/1.0',
    ]) {
      const answer = await client.send<{ access_token: string }>('POST', path, {
        form: { grant_type: 'client_credentials', scope: 'PIS', client_id: client.clientId },
      });
      assert.deepEqual(
        [answer.status, answer.body],
        [200, { access_token: answer.body.access_token, expires_in: 86400, token_type: 'Bearer' }],
        path,
      );
    }
  });

  test('the live token prefix: client credentials, authorization code and refresh at /bb/gls5', async () => {
    const aisToken = await client.clientToken('AIS');
    const consentId = await client.consent(aisToken);
    const tokens = await client.authorize(`AIS:${consentId}`);
    assert.match(tokens.refresh_token!, /^[A-Za-z0-9_-]{43}$/);
    const refreshed = await client.token({
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token!,
      client_id: client.clientId,
    });
    assert.deepEqual(
      [refreshed.status, Object.keys(refreshed.body).sort()],
      [200, ['access_token', 'expires_in', 'token_type']],
    );
    assert.equal(refreshed.headers.get('cache-control'), 'no-store');
    // The first refresh token again (clients keep it), then the consent ends: it reads nothing more.
    const again = await client.token({
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token!,
      client_id: client.clientId,
    });
    assert.equal(again.status, 200);
    const deleted = await client.send('DELETE', `/openbanking/psd2/v1/consents/${consentId}`, {
      headers: client.headers(aisToken),
    });
    assert.equal(deleted.status, 204);
    const refused = await client.token({
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token!,
      client_id: client.clientId,
    });
    assert.deepEqual(
      [refused.status, refused.body],
      [
        400,
        { error: 'invalid_grant', error_description: 'the consent of the refresh token is no longer valid' },
      ],
    );
    const read = await client.send('GET', '/openbanking/psd2/v2/accounts', {
      headers: client.headers(again.body.access_token),
    });
    assert.deepEqual(
      [read.status, read.body],
      [
        401,
        errorBody(401, 'Unauthorized', { code: 'CONSENT_INVALID', text: 'The consent was ended by the TPP' }),
      ],
    );
  });

  test('decoupled v1 (mbid) at the live prefix: psu_id names who signs; polls with an empty JSON body', async () => {
    const consentId = await client.consent(await client.clientToken('AIS'));
    const init = await client.send<{
      auto_start_token: string;
      sleep_time: number;
      _links: { token: { href: string; hints: unknown }; cancel: { href: string; hints: unknown } };
    }>('POST', '/bb/gls5/decoupled/mbid/initAuthorization/1.0', {
      json: {
        psu_id: AGDA,
        psu_id_type: '1',
        psu_client_ip: '192.0.2.7',
        scope: `AIS:${consentId}`,
        client_id: client.clientId,
      },
    });
    assert.equal(init.status, 200, JSON.stringify(init.body));
    const sessionId = new URL(init.body._links.token.href).searchParams.get('sessionId');
    assert.match(sessionId!, /^[A-Za-z0-9_-]{43}$/);
    assert.deepEqual(init.body, {
      auto_start_token: init.body.auto_start_token,
      sleep_time: 2000,
      _links: {
        token: {
          href: `${client.origin}/bb/gls5/decoupled/mbid/token/1.0?sessionId=${sessionId}`,
          hints: { allow: ['POST'] },
        },
        cancel: {
          href: `${client.origin}/bb/gls5/decoupled/mbid/cancel/1.0?sessionId=${sessionId}`,
          hints: { allow: ['POST'] },
        },
      },
    });
    assert.match(init.body.auto_start_token, /^[0-9a-f-]{36}$/);
    // The poll: a POST to the href with Content-Type: application/json and no body at all.
    const poll = await client.send<{ access_token: string; refresh_token: string }>(
      'POST',
      init.body._links.token.href.slice(client.origin.length),
      {
        headers: { 'Content-Type': 'application/json' },
      },
    );
    assert.deepEqual(
      [poll.status, poll.body],
      [
        200,
        {
          result: 'COMPLETE',
          access_token: poll.body.access_token,
          token_type: 'Bearer',
          expires_in: 900,
          refresh_token: poll.body.refresh_token,
        },
      ],
    );
    // The consent is Agda's: psu_id named her.
    const accounts = await client.send('GET', '/openbanking/psd2/v2/accounts', {
      headers: client.headers(poll.body.access_token),
    });
    assert.deepEqual(
      [accounts.status, accounts.body],
      [200, { accounts: [v2Account(ACCOUNTS.agda, client.origin, BALANCE)] }],
    );
  });

  test('decoupled v1, a consent anyone may approve: a known and an unknown psu_id start alike; the unknown signer gets no token', async () => {
    const aisToken = await client.clientToken('AIS');
    const init = async (psuId: string) => {
      const scope = `AIS:${await client.consent(aisToken)}`;
      const answer = await client.send<{ auto_start_token: string; _links: { token: { href: string } } }>(
        'POST',
        '/bb/gls5/decoupled/mbid/initAuthorization/1.0',
        {
          json: {
            psu_id: psuId,
            psu_id_type: '1',
            psu_client_ip: '192.0.2.7',
            scope,
            client_id: client.clientId,
          },
        },
      );
      // What differs per session (its start token and session id) normalised; all else compared.
      const sessionId = /sessionId=[\w-]+/g;
      const shape = JSON.parse(
        JSON.stringify(answer.body)
          .replace(/"auto_start_token":"[0-9a-f-]{36}"/, '"auto_start_token":"<token>"')
          .replaceAll(sessionId, 'sessionId=<id>'),
      );
      return { answer, shape };
    };
    const known = await init(AGDA);
    const unknown = await init('190001019999');
    assert.deepEqual([unknown.answer.status, unknown.shape], [known.answer.status, known.shape]);
    assert.deepEqual(
      [known.answer.status, known.shape],
      [
        200,
        {
          auto_start_token: '<token>',
          sleep_time: 2000,
          _links: {
            token: {
              href: `${client.origin}/bb/gls5/decoupled/mbid/token/1.0?sessionId=<id>`,
              hints: { allow: ['POST'] },
            },
            cancel: {
              href: `${client.origin}/bb/gls5/decoupled/mbid/cancel/1.0?sessionId=<id>`,
              hints: { allow: ['POST'] },
            },
          },
        },
      ],
    );
    // The sandbox's e-ID completes at once for the personal number named: the bank does not know them.
    const poll = (href: string) =>
      client.send('POST', href.slice(client.origin.length), {
        headers: { 'Content-Type': 'application/json' },
      });
    const refused = await poll(unknown.answer.body._links.token.href);
    assert.deepEqual(
      [refused.status, refused.body],
      [400, { error: 'mbid_error', error_description: 'the PSU cannot sign this with the e-ID' }],
    );
    const again = await poll(unknown.answer.body._links.token.href);
    assert.deepEqual(
      [again.status, again.body],
      [400, { error: 'invalid_request', error_description: 'the session has ended' }],
    );
    const signed = await poll(known.answer.body._links.token.href);
    assert.deepEqual([signed.status, (signed.body as { result?: string }).result], [200, 'COMPLETE']);
  });

  test('decoupled: a psu_id who may not sign is refused; version 2 polls with an empty body too', async () => {
    const token = await client.clientToken('PIS');
    const initiated = await client.send<{ paymentId: string }>(
      'POST',
      '/openbanking/psd2/se/v2/payments/private/single/handelsbanken-domestic-credit-transfer',
      { headers: client.headers(token), json: domestic() },
    );
    const scope = `PIS:${initiated.body.paymentId}`;
    const refused = await client.send('POST', '/bb/gls5/decoupled/mbid/initAuthorization/1.0', {
      json: { psu_id: AGDA, psu_id_type: '1', psu_client_ip: '192.0.2.7', scope, client_id: client.clientId },
    });
    assert.deepEqual(
      [refused.status, refused.body],
      [
        400,
        { error: 'invalid_request', error_description: 'psu_id: the PSU does not hold the debtor account' },
      ],
    );
    const unknown = await client.send('POST', '/bb/gls5/decoupled/mbid/initAuthorization/1.0', {
      json: { psu_id: '190001019999', psu_client_ip: '192.0.2.7', scope, client_id: client.clientId },
    });
    // An id the bank does not know is refused exactly as a PSU who does not hold the account.
    assert.deepEqual([unknown.status, unknown.body], [refused.status, refused.body]);
    const init = await client.send<{ _links: { token: { href: string } } }>(
      'POST',
      '/openbanking/decoupled/eid/initAuthorization/2.0',
      { json: { client_id: client.clientId, scope, psu_client_ip: '192.0.2.7', bisa_same_device: true } },
    );
    assert.equal(init.status, 200);
    const href = init.body._links.token.href;
    assert.ok(href.startsWith(`${client.origin}/openbanking/decoupled/eid/token/2.0?sessionId=`), href);
    const poll = await client.send<{ result: string }>('POST', href.slice(client.origin.length), {
      headers: { 'Content-Type': 'application/json' },
    });
    assert.deepEqual([poll.status, poll.body.result], [200, 'COMPLETE']);
  });

  test('payment bodies: fields the contract does not know are ignored and named; amounts as numbers', async () => {
    const token = await client.clientToken('PIS');
    const path = '/openbanking/psd2/se/v2/payments/private/single/handelsbanken-domestic-credit-transfer';
    const answer = await client.send<{ paymentId: string }>('POST', path, {
      headers: client.headers(token),
      json: {
        ...domestic(),
        debtorAccount: { value: ACCOUNTS.tolvan.bban, accountType: 'BBAN', currency: 'SEK', text: 'Hyran' },
        instructedAmount: { currency: 'SEK', amount: 100.0 },
        campaign: 'november',
      },
    });
    assert.deepEqual(
      [answer.status, answer.body],
      [
        200,
        {
          paymentId: answer.body.paymentId,
          scaMethods: expectedScaMethods(`${client.origin}/openbanking`, true),
          transactionStatus: 'ACTC',
        },
      ],
    );
    assert.equal(answer.headers.get('x-ignored-fields'), 'debtorAccount.text, campaign');
    // A field the contract knows is still checked strictly.
    const wrong = await client.send('POST', path, {
      headers: client.headers(token),
      json: { ...domestic(), instructedAmount: { currency: 'SEK', amount: true }, debtorNote: 'x' },
    });
    assert.deepEqual(
      [wrong.status, wrong.body],
      [
        400,
        errorBody(400, 'Bad Request', {
          code: 'FORMAT_ERROR',
          path: 'instructedAmount.amount',
          text: 'instructedAmount.amount must be a decimal string or a number',
        }),
      ],
    );
    assert.equal(wrong.headers.get('x-ignored-fields'), 'debtorNote');
  });

  test('Luxembourg account information: its own consents and accounts under /psd2/lu/v1', async () => {
    const aisToken = await client.clientToken('AIS');
    const created = await client.send<{ consentId: string }>('POST', '/openbanking/psd2/lu/v1/consents', {
      headers: client.headers(aisToken),
      json: { access: 'ALL_ACCOUNTS' },
    });
    assert.deepEqual(
      [created.status, created.body],
      [
        201,
        {
          consentId: created.body.consentId,
          consentStatus: 'received',
          scaMethods: expectedScaMethods(`${client.origin}/openbanking`, false),
        },
      ],
    );
    const { access_token: token } = await client.authorize(`AIS:${created.body.consentId}`);
    const lu = ACCOUNTS.lu;
    const accounts = await client.send('GET', '/openbanking/psd2/lu/v1/accounts', {
      headers: client.headers(token),
    });
    assert.deepEqual(
      [accounts.status, accounts.body],
      [
        200,
        {
          accounts: [
            {
              accountId: lu.accountId,
              iban: lu.iban,
              ...(lu.bic === null ? {} : { bic: lu.bic }),
              currency: 'EUR',
              accountType: lu.accountType,
              name: lu.name,
              ownerName: lu.ownerName,
              balances: [
                { amount: { content: '150000.00', currency: 'EUR' }, balanceType: 'booked' },
                { amount: { content: '150000.00', currency: 'EUR' }, balanceType: 'available' },
              ],
              _links: {
                transactions: {
                  href: `${client.origin}/openbanking/psd2/lu/v1/accounts/${lu.accountId}/transactions`,
                },
              },
            },
          ],
        },
      ],
    );
    const general = await client.send('GET', '/openbanking/psd2/v1/accounts', {
      headers: client.headers(token),
    });
    assert.deepEqual(
      [general.status, general.body],
      [
        401,
        errorBody(401, 'Unauthorized', {
          code: 'CONSENT_INVALID',
          text: 'The consent was given for the Luxembourg accounts API, not the general accounts API',
        }),
      ],
    );
  });

  test('onboarding as clients send it: the TPP id in the alias header; an app may use only its products', async () => {
    const ids = () => ({ 'TPP-Request-ID': randomUUID(), 'TPP-Transaction-ID': randomUUID() });
    const enrolled = await client.send<{ clientId: string }>('POST', '/openbanking/psd2/v1/third-parties', {
      headers: ids(),
    });
    assert.equal(enrolled.status, 201);
    const tppId = enrolled.body.clientId;
    const admin = await client.clientToken('PSD2-ADMIN', tppId);
    const subscribe = (body: unknown) =>
      client.send<{ clientId: string }>('POST', '/openbanking/psd2/v1/subscriptions', {
        headers: { ...ids(), 'X-IBM-Client-Id': tppId, Authorization: `Bearer ${admin}` },
        json: body,
      });
    const registered = await subscribe({
      app: { name: 'Budget app', description: 'Rehearsal', oauthRedirectURI: 'https://budget.example/cb' },
      product: { name: 'payments-se-private' },
    });
    assert.equal(registered.status, 200, JSON.stringify(registered.body));
    const appId = registered.body.clientId;
    assert.match(appId, /^[0-9a-f]{32}$/);
    const pis = await client.clientToken('PIS', appId);
    const paid = await client.send(
      'POST',
      '/openbanking/psd2/se/v2/payments/private/single/handelsbanken-domestic-credit-transfer',
      { headers: client.headers(pis, appId), json: domestic() },
    );
    assert.equal(paid.status, 200);
    const ais = await client.clientToken('AIS', appId);
    const consent = () =>
      client.send('POST', '/openbanking/psd2/v1/consents', {
        headers: client.headers(ais, appId),
        json: { access: 'ALL_ACCOUNTS' },
      });
    const refused = await consent();
    assert.deepEqual(
      [refused.status, refused.body],
      [
        403,
        errorBody(403, 'Forbidden', {
          code: 'PRODUCT_INVALID',
          text: 'The app is not subscribed to consents',
        }),
      ],
    );
    const added = await subscribe({ clientId: appId, product: { name: 'consents' } });
    assert.equal(added.status, 200);
    assert.equal((await consent()).status, 201);
    // The seeded sandbox app is subscribed to everything.
    assert.equal(
      (await client.consent(await client.clientToken('AIS'), '/openbanking/psd2/gb/v1/consents')).length > 0,
      true,
    );
  });

  test('the fifth client: one TPP-Request-ID for every call, its whole flow twice, X-Sandbox-User; the second run as the first', async () => {
    // Its ids never change, between calls or runs (API-NOTES "What clients of the real service send").
    const ids = {
      'TPP-Request-ID': 'fifth-client-request',
      'TPP-Transaction-ID': 'fifth-client-transaction',
    };
    const headers = (token: string) => ({ ...client.headers(token), ...ids });
    const token = async (form: Record<string, string>) => {
      const answer = await client.send<{ access_token: string }>('POST', '/openbanking/oauth2/token/1.0', {
        form: { client_id: client.clientId, ...form },
        headers: ids,
      });
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
      return answer.body.access_token;
    };
    const authorized = async (scope: string) => {
      const query = new URLSearchParams({
        response_type: 'code',
        scope,
        client_id: client.clientId,
        state: 'fifth',
        redirect_uri: client.redirectUri,
      });
      const answer = await client.send('GET', `/openbanking/oauth2/authorize/1.0?${query}`, {
        headers: { ...ids, 'X-Sandbox-User': 'SANDBOX-INDIVIDUAL-SE-1' },
      });
      assert.equal(answer.status, 302);
      const code = new URL(answer.headers.get('location')!).searchParams.get('code');
      assert.ok(code, answer.headers.get('location') ?? '');
      return token({ grant_type: 'authorization_code', code, redirect_uri: client.redirectUri, scope });
    };
    const run = async () => {
      const consent = await client.send<{ consentId: string; consentStatus: string }>(
        'POST',
        '/openbanking/psd2/v1/consents',
        {
          headers: headers(await token({ grant_type: 'client_credentials', scope: 'AIS' })),
          json: { access: 'ALL_ACCOUNTS' },
        },
      );
      assert.equal(consent.status, 201, JSON.stringify(consent.body));
      assert.equal(consent.headers.get('tpp-request-id'), ids['TPP-Request-ID']);
      const ais = await authorized(`AIS:${consent.body.consentId}`);
      const accounts = await client.send<{ accounts: { accountId: string; ownerName: string }[] }>(
        'GET',
        '/openbanking/psd2/v2/accounts',
        { headers: headers(ais) },
      );
      assert.equal(accounts.status, 200, JSON.stringify(accounts.body));
      const pis = await token({ grant_type: 'client_credentials', scope: 'PIS' });
      const initiated = await client.send<{ paymentId: string; transactionStatus: string }>(
        'POST',
        '/openbanking/psd2/se/v2/payments/private/single/handelsbanken-domestic-credit-transfer',
        { headers: headers(pis), json: domestic() },
      );
      assert.equal(initiated.status, 200, JSON.stringify(initiated.body));
      const { paymentId } = initiated.body;
      const psu = await authorized(`PIS:${paymentId}`);
      const executed = await client.send(
        'PUT',
        `/openbanking/psd2/v1/payments/handelsbanken-domestic-credit-transfer/${paymentId}`,
        { headers: headers(psu) },
      );
      assert.deepEqual([executed.status, executed.body], [200, { paymentId, transactionStatus: 'ACCC' }]);
      return {
        consentId: consent.body.consentId,
        consentStatus: consent.body.consentStatus,
        accounts: accounts.body.accounts.map(({ accountId, ownerName }) => ({ accountId, ownerName })),
        paymentId,
        initiated: initiated.body.transactionStatus,
      };
    };
    const first = await run();
    const second = await run();
    assert.notEqual(second.consentId, first.consentId, 'a new consent, not the first one replayed');
    assert.notEqual(second.paymentId, first.paymentId, 'a new payment, not the first one replayed');
    assert.deepEqual(
      { ...second, consentId: 'c', paymentId: 'p' },
      { ...first, consentId: 'c', paymentId: 'p' },
    );
    assert.equal(first.consentStatus, 'received');
    assert.ok(
      first.accounts.some((account) => account.accountId === ACCOUNTS.tolvan.accountId),
      JSON.stringify(first.accounts),
    );
    assert.deepEqual(
      new Set(first.accounts.map((account) => account.ownerName)),
      new Set([ACCOUNTS.tolvan.ownerName]),
    );
  });

  test('X-Sandbox-User: an unknown name answers 400 naming the valid ones; another PSU than the payer is access_denied', async () => {
    const pis = await client.clientToken('PIS');
    const initiated = await client.send<{ paymentId: string }>(
      'POST',
      '/openbanking/psd2/se/v2/payments/private/single/handelsbanken-domestic-credit-transfer',
      { headers: client.headers(pis), json: domestic() },
    );
    const query = new URLSearchParams({
      response_type: 'code',
      scope: `PIS:${initiated.body.paymentId}`,
      client_id: client.clientId,
      state: 's',
      redirect_uri: client.redirectUri,
    });
    const path = `/openbanking/oauth2/authorize/1.0?${query}`;
    const unknown = await client.send('GET', path, { headers: { 'X-Sandbox-User': 'SANDBOX-NOBODY-1' } });
    assert.deepEqual(
      [unknown.status, unknown.body],
      [
        400,
        errorBody(400, 'Bad Request', {
          code: 'FORMAT_ERROR',
          path: 'X-Sandbox-User',
          text: 'X-Sandbox-User names no sandbox user: use one of SANDBOX-INDIVIDUAL-SE-1, SANDBOX-INDIVIDUAL-SE-2, SANDBOX-CORPORATE-SE-1, SANDBOX-CORPORATE-SE-2, SANDBOX-INDIVIDUAL-NL-1, SANDBOX-INDIVIDUAL-LU-1, SANDBOX-INDIVIDUAL-GB-1',
        }),
      ],
    );
    const other = await client.send('GET', path, {
      headers: { 'X-Sandbox-User': 'SANDBOX-INDIVIDUAL-SE-2' },
    });
    assert.equal(other.status, 302);
    const location = new URL(other.headers.get('location')!);
    assert.deepEqual(Object.fromEntries(location.searchParams), {
      error: 'access_denied',
      error_description: 'the PSU does not hold the debtor account',
      state: 's',
    });
    // A corporate sandbox user may not approve a short-term consent (for individuals only), as a
    // corporate who logs in may not; an individual one approves it at once.
    const shortTerm = await client.send<{ consentId: string }>(
      'POST',
      '/openbanking/psd2/se/v2/payments/private/accounts/shorttermconsents',
      { headers: client.headers(pis), json: { access: 'ALL_ACCOUNTS' } },
    );
    assert.equal(shortTerm.status, 201);
    const consentQuery = new URLSearchParams({
      response_type: 'code',
      scope: `PIS:${shortTerm.body.consentId}`,
      client_id: client.clientId,
      state: 'c',
      redirect_uri: client.redirectUri,
    });
    const consentPath = `/openbanking/oauth2/authorize/1.0?${consentQuery}`;
    const corporate = await client.send('GET', consentPath, {
      headers: { 'X-Sandbox-User': 'SANDBOX-CORPORATE-SE-1' },
    });
    assert.equal(corporate.status, 302);
    assert.deepEqual(Object.fromEntries(new URL(corporate.headers.get('location')!).searchParams), {
      error: 'access_denied',
      error_description: 'short-term consents are for individual customers only',
      state: 'c',
    });
    const individual = await client.send('GET', consentPath, {
      headers: { 'X-Sandbox-User': 'SANDBOX-INDIVIDUAL-SE-2' },
    });
    assert.equal(individual.status, 302);
    const approved = new URL(individual.headers.get('location')!).searchParams;
    assert.deepEqual([...approved.keys()].sort(), ['code', 'state']);
  });
});

describe('the sandbox over HTTPS, behind a proxy, on port 443', () => {
  test('TLS_CERT and TLS_KEY without TLS_CLIENT_CA: plain HTTPS, no client certificate asked', async () => {
    const ca = await createCa();
    const server = await issueServerCertificate(ca);
    const gateway = await startGateway({ tls: { key: server.keyPem, cert: server.certificatePem } });
    try {
      assert.ok(gateway.url.startsWith('https://localhost:'), gateway.url);
      const health = await tlsRequest(`${gateway.url}/healthz`, { method: 'GET', ca: ca.certificatePem });
      const { status, mode, systems } = health.body as { status: string; mode: string; systems: object };
      assert.deepEqual(
        { status: health.status, body: { status, mode, systems: Object.keys(systems) } },
        { status: 200, body: { status: 'ok', mode: 'sandbox', systems: ['database'] } },
      );
      const token = await tlsRequest(`${gateway.url}/oauth2/token/1.0`, {
        method: 'POST',
        ca: ca.certificatePem,
        headers: { 'Content-Type': FORM },
        body: new URLSearchParams({
          grant_type: 'client_credentials',
          scope: 'PIS',
          client_id: gateway.sandboxApp.clientId,
        }).toString(),
      });
      assert.equal(token.status, 200, JSON.stringify(token.body));
      // No mutual TLS: a payment without a client certificate is the sandbox's, not CERTIFICATE_MISSING.
      const paid = await tlsRequest(
        `${gateway.url}/psd2/se/v2/payments/private/single/handelsbanken-domestic-credit-transfer`,
        {
          method: 'POST',
          ca: ca.certificatePem,
          headers: {
            ...gateway.client.tppHeaders((token.body as { access_token: string }).access_token),
            'Content-Type': 'application/json',
          },
          body: JSON.stringify(domestic()),
        },
      );
      assert.equal(paid.status, 200, JSON.stringify(paid.body));
      assert.deepEqual(
        (paid.body as { scaMethods: unknown }).scaMethods,
        expectedScaMethods(gateway.url, true),
      );
    } finally {
      await gateway.close();
    }
  });

  test('TRUST_PROXY: links follow X-Forwarded-Proto and -Host; without it those headers are not believed', async () => {
    for (const trustProxy of [true, false]) {
      const gateway = await startGateway({ config: { trustProxy, basePath: '/openbanking' } });
      try {
        const token = await gateway.client.clientCredentialsToken();
        const answer = await gateway.client.initiate(token, {
          path: '/psd2/se/v2/payments/private/single/handelsbanken-domestic-credit-transfer',
          body: domestic(),
          headers: { 'X-Forwarded-Proto': 'https', 'X-Forwarded-Host': 'api.bank.example' },
        });
        const origin = trustProxy ? 'https://api.bank.example' : new URL(gateway.url).origin;
        assert.deepEqual(answer.body.scaMethods, expectedScaMethods(`${origin}/openbanking`, true));
      } finally {
        await gateway.close();
      }
    }
  });

  test('PORT=443: the start line and the seeded redirect URI carry no port', () => {
    assert.equal(localOrigin('https://127.0.0.1:443'), 'https://localhost');
    assert.equal(localOrigin('http://[::1]:3000'), 'http://localhost:3000');
    const config = { publicUrl: undefined, basePath: '/openbanking' } as const;
    assert.equal(
      defaultRedirectUri(config as never, localOrigin('https://127.0.0.1:443')),
      'https://localhost/openbanking/sandbox/callback',
    );
  });
});
