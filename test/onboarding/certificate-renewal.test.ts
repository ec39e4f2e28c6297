// Certificate renewal keeps everything (issue 37, point 3; spec row 3: "earlier consents and tokens stay
// valid"): tokens, refresh tokens and consents issued over one of a TPP's certificates work over any
// certificate the TPP has added with PUT /third-parties, after the first one expired too; never over a
// certificate that was never added, removed by the bank, revoked, or another TPP's. A decoupled session
// answers its own app over its TPP's certificates only (point 4). Real TLS on loopback with certificates
// minted by the cert code; the gateway's clock is moved by hand.
import assert from 'node:assert/strict';
import { createHash, X509Certificate } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { simulatedEidApp } from '../../src/adapters/eid-simulator.ts';
import {
  createCa,
  createCrl,
  type Issued,
  issueQwac,
  issueServerCertificate,
} from '../../src/certificates/issue.ts';
import { removeCertificate } from '../../src/store/tpps-repository.ts';
import {
  type Backend,
  backends,
  type Gateway,
  manualClock,
  sibling,
  startGateway,
} from '../helpers/gateway.ts';
import { errorBody } from '../helpers/http.ts';
import { type ClientCertificate, tlsRequest } from '../helpers/tls.ts';

const DAY = 86_400_000;
const X = 'PSDSE-FINA-44059';
const TPP_X = 'SE-FINA-44059';
const Y = 'PSDSE-FINA-55555';
const TPP_Y = 'SE-FINA-55555';
const PSU = '191212121212';

for (const backend of backends()) describe(`on ${backend}`, () => renewal(backend));

function renewal(backend: Backend): void {
  const time = manualClock();
  let ca: Issued;
  let server: Issued;
  let gateway: Gateway;
  /** A, the TPP's first certificate, expires in 10 days; B and D are its renewals; C is another TPP's. */
  const certs = {} as Record<'a' | 'b' | 'd' | 'never' | 'c', Issued>;

  const qwac = (organizationIdentifier: string, validDays = 400) =>
    issueQwac(ca, {
      organizationIdentifier,
      organizationName: organizationIdentifier === X ? 'Budget Buddy AB' : 'Other TPP AB',
      roles: ['PSP_PI', 'PSP_AI'],
      notAfter: new Date(Date.now() + validDays * DAY),
    });

  before(async () => {
    ca = await createCa();
    server = await issueServerCertificate(ca);
    certs.a = await qwac(X, 10);
    certs.b = await qwac(X);
    certs.d = await qwac(X);
    certs.never = await qwac(X);
    certs.c = await qwac(Y);
    gateway = await startGateway({
      backend,
      clock: time.clock,
      config: { mode: 'live' },
      tls: { key: server.keyPem, cert: server.certificatePem, ca: ca.certificatePem },
    });
  });
  after(() => gateway?.close());

  const HEADERS = { 'TPP-Request-ID': 'r-1', 'TPP-Transaction-ID': 't-1', Accept: 'application/json' };

  function over(
    target: Gateway,
    client: ClientCertificate,
    method: string,
    path: string,
    options: { json?: unknown; form?: Record<string, string>; headers?: Record<string, string> } = {},
  ) {
    const type: Record<string, string> =
      options.json !== undefined
        ? { 'Content-Type': 'application/json' }
        : options.form !== undefined
          ? { 'Content-Type': 'application/x-www-form-urlencoded' }
          : {};
    return tlsRequest(target.url + path, {
      method,
      ca: ca.certificatePem,
      client,
      headers: { ...HEADERS, ...type, ...options.headers },
      ...(options.json !== undefined ? { body: JSON.stringify(options.json) } : {}),
      ...(options.form !== undefined ? { body: new URLSearchParams(options.form).toString() } : {}),
    });
  }

  /** SHA-256 of the DER in hex, as the gateway names a certificate. */
  const thumbprint = (issued: Issued) =>
    createHash('sha256').update(new X509Certificate(issued.certificatePem).raw).digest('hex');

  const base64 = (issued: Issued) =>
    Buffer.from(new X509Certificate(issued.certificatePem).raw).toString('base64');

  const addCertificate = (client: Issued, target = gateway) =>
    over(target, client, 'PUT', '/psd2/v1/third-parties', { json: { clientCertificate: base64(client) } });

  async function accessToken(client: Issued, clientId: string, scope: string): Promise<string> {
    const answer = await over(gateway, client, 'POST', '/oauth2/token/1.0', {
      form: { grant_type: 'client_credentials', scope, client_id: clientId },
    });
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    return (answer.body as { access_token: string }).access_token;
  }

  /** Enrolls the certificate's TPP and registers an app subscribed to accounts and consents; its id. */
  async function appOf(client: Issued, tppId: string): Promise<string> {
    assert.equal((await over(gateway, client, 'POST', '/psd2/v1/third-parties')).status, 201);
    const admin = await accessToken(client, tppId, 'PSD2-ADMIN');
    const subscribe = (body: unknown) =>
      over(gateway, client, 'POST', '/psd2/v1/subscriptions', {
        json: body,
        headers: {
          'X-Gateway-Client-Id': tppId,
          Authorization: `Bearer ${admin}`,
          'TPP-Request-ID': `s-${Math.random()}`,
        },
      });
    const app = { name: 'Budget', description: '', oauthRedirectURI: 'https://budget.example/cb' };
    const registered = await subscribe({ app, product: { name: 'accounts' } });
    const clientId = (registered.body as { clientId: string }).clientId;
    assert.equal((await subscribe({ clientId, product: { name: 'consents' } })).status, 200);
    return clientId;
  }

  let appX: string;
  let appY: string;
  /** X's AIS client-credentials token, its PSU tokens of an approved consent: all issued over A. */
  let aisToken: string;
  let psuToken: string;
  let refreshToken: string;

  const accounts = (client: Issued, token: string, clientId = appX, target = gateway) =>
    over(target, client, 'GET', '/psd2/v1/accounts', {
      headers: {
        'X-Gateway-Client-Id': clientId,
        Authorization: `Bearer ${token}`,
        'PSU-IP-Address': '192.0.2.1',
      },
    });

  const refresh = (client: Issued, clientId = appX, target = gateway) =>
    over(target, client, 'POST', '/oauth2/token/1.0', {
      form: { grant_type: 'refresh_token', refresh_token: refreshToken, client_id: clientId },
    });

  const createConsent = (client: Issued) =>
    over(gateway, client, 'POST', '/psd2/v1/consents', {
      json: { access: 'ALL_ACCOUNTS' },
      headers: {
        'X-Gateway-Client-Id': appX,
        Authorization: `Bearer ${aisToken}`,
        'TPP-Request-ID': `c-${Math.random()}`,
      },
    });

  /** Over `client`: a consent of X's app, and a decoupled session (v1, the PSU named) to approve it. */
  async function startSession(client: Issued) {
    const created = await createConsent(client);
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const consentId = (created.body as { consentId: string }).consentId;
    const init = await over(gateway, client, 'POST', '/decoupled/mbid/initAuthorization/1.0', {
      json: {
        psu_id: PSU,
        psu_id_type: '1',
        psu_client_ip: '192.0.2.1',
        scope: `AIS:${consentId}`,
        client_id: appX,
      },
    });
    assert.equal(init.status, 200, JSON.stringify(init.body));
    return init;
  }

  /** An access token (900 s) that a refresh answers. */
  function refreshed(answer: { status: number; body: unknown }): string {
    const body = answer.body as { access_token: string };
    assert.deepEqual(answer, {
      status: 200,
      body: { access_token: body.access_token, expires_in: 900, token_type: 'Bearer' },
    });
    return body.access_token;
  }

  const INVALID_CLIENT = {
    status: 401,
    body: { error: 'invalid_client', error_description: 'client authentication failed' },
  };
  const NOT_REGISTERED = {
    status: 401,
    body: errorBody(401, 'Unauthorized', {
      code: 'CERTIFICATE_INVALID',
      text: 'The certificate is not registered: enroll with POST /psd2/v1/third-parties',
    }),
  };

  test('over A: enrollment, an app, a consent the PSU approves in the e-ID app, its tokens', async () => {
    appX = await appOf(certs.a, TPP_X);
    appY = await appOf(certs.c, TPP_Y);
    aisToken = await accessToken(certs.a, appX, 'AIS');
    const init = await startSession(certs.a);
    const eidApp = simulatedEidApp(gateway.store.db);
    const order = (await eidApp.find(PSU, time.clock()))!;
    assert.equal(await eidApp.open(order.orderRef, time.clock()), true);
    assert.equal(await eidApp.approve(order.orderRef, time.clock()), true);
    time.advance(2000);
    const tokenLink = new URL((init.body as { _links: { token: { href: string } } })._links.token.href);
    const polled = await over(gateway, certs.a, 'POST', tokenLink.pathname + tokenLink.search, { json: {} });
    const tokens = polled.body as { result: string; access_token: string; refresh_token: string };
    assert.equal(tokens.result, 'COMPLETE', JSON.stringify(tokens));
    psuToken = tokens.access_token;
    refreshToken = tokens.refresh_token;
    assert.equal((await accounts(certs.a, psuToken)).status, 200);
  });

  test('before B is added, it is no certificate of the TPP: refused', async () => {
    assert.deepEqual(await accounts(certs.b, psuToken), NOT_REGISTERED);
    assert.deepEqual(await refresh(certs.b), INVALID_CLIENT);
  });

  test('after PUT adds B: the tokens and the refresh token issued over A work over B', async () => {
    assert.deepEqual(await addCertificate(certs.b), { status: 200, body: { clientId: TPP_X } });
    const read = await accounts(certs.b, psuToken);
    assert.equal(read.status, 200, JSON.stringify(read.body));
    // The client-credentials token (kept in the token cache) makes a consent over B.
    assert.equal((await createConsent(certs.b)).status, 201);
    const renewed = refreshed(await refresh(certs.b));
    assert.equal((await accounts(certs.b, renewed)).status, 200);
    // And A still works while it is valid: PUT adds, it does not replace.
    assert.equal((await accounts(certs.a, renewed)).status, 200);
  });

  test("another TPP's certificate, or one never added, gets nothing of X's", async () => {
    // C is Y's: Y's app, X's token.
    assert.deepEqual(await accounts(certs.c, psuToken, appY), {
      status: 401,
      body: errorBody(401, 'Unauthorized', {
        code: 'TOKEN_INVALID',
        text: 'The access token is bound to another certificate',
      }),
    });
    assert.deepEqual(await refresh(certs.c), INVALID_CLIENT);
    assert.deepEqual(await refresh(certs.c, appY), {
      status: 400,
      // Another client's refresh token answers as an unknown one.
      body: { error: 'invalid_grant', error_description: 'the refresh token is not valid' },
    });
    assert.deepEqual(await accounts(certs.never, psuToken), NOT_REGISTERED);
    assert.deepEqual(await refresh(certs.never), INVALID_CLIENT);
  });

  test('once A has expired, B still refreshes the consent and reads with the new token; A is refused', async () => {
    time.advance(11 * DAY);
    const renewed = refreshed(await refresh(certs.b));
    assert.equal((await accounts(certs.b, renewed)).status, 200);
    assert.deepEqual(await refresh(certs.a), INVALID_CLIENT);
    assert.deepEqual(await accounts(certs.a, renewed), {
      status: 401,
      body: errorBody(401, 'Unauthorized', {
        code: 'CERTIFICATE_EXPIRED',
        text: 'The certificate has expired',
      }),
    });
  });

  test("decoupled sessions: only the session's app over its TPP's certificates; others as for an unknown session", async () => {
    aisToken = await accessToken(certs.b, appX, 'AIS');
    const init = await startSession(certs.b);
    const links = (init.body as { _links: Record<'token' | 'cancel', { href: string }> })._links;
    const path = (action: 'token' | 'cancel', sessionId?: string) => {
      const url = new URL(links[action].href);
      if (sessionId !== undefined) url.searchParams.set('sessionId', sessionId);
      return url.pathname + url.search;
    };
    const unknown = {
      status: 400,
      body: { error: 'invalid_request', error_description: 'sessionId is not known' },
    };
    const none = (action: 'token' | 'cancel') =>
      tlsRequest(gateway.url + path(action), {
        method: 'POST',
        ca: ca.certificatePem,
        headers: { 'Content-Type': 'application/json' },
        body: '{}',
      });
    for (const action of ['cancel', 'token'] as const) {
      assert.deepEqual(await over(gateway, certs.b, 'POST', path(action, 'nope'), { json: {} }), unknown);
      assert.deepEqual(
        await over(gateway, certs.c, 'POST', path(action), { json: {} }),
        unknown,
        `${action}: C`,
      );
      assert.deepEqual(
        await over(gateway, certs.c, 'POST', path(action), {
          json: {},
          headers: { 'X-Gateway-Client-Id': appY },
        }),
        unknown,
        `${action}: C naming Y's app`,
      );
      assert.deepEqual(await over(gateway, certs.never, 'POST', path(action), { json: {} }), unknown);
      assert.deepEqual(await none(action), unknown, `${action}: no certificate`);
    }
    // Its TPP goes on: a poll over A (expired by now) is refused, one over B is answered, a cancel ends it.
    time.advance(2000);
    assert.deepEqual(await over(gateway, certs.a, 'POST', path('token'), { json: {} }), unknown);
    assert.deepEqual(await over(gateway, certs.b, 'POST', path('token'), { json: {} }), {
      status: 200,
      body: { result: 'IN_PROGRESS', sleep_time: 2000 },
    });
    assert.deepEqual(await over(gateway, certs.b, 'POST', path('cancel'), { json: {} }), {
      status: 204,
      body: '',
    });
    assert.deepEqual(await over(gateway, certs.b, 'POST', path('token'), { json: {} }), {
      status: 400,
      body: { error: 'invalid_request', error_description: 'the session has ended' },
    });
  });

  test('a certificate the bank removed, or one revoked, is refused; the TPP goes on with its others', async () => {
    assert.deepEqual(await addCertificate(certs.d), { status: 200, body: { clientId: TPP_X } });
    // What `psd2-gateway tpp remove-certificate` does.
    assert.equal(await removeCertificate(gateway.store.db, thumbprint(certs.b), time.clock()), TPP_X);
    // Another process on the same database, or this one once its certificate cache has renewed.
    const later = await sibling(gateway, {
      clock: time.clock,
      config: { mode: 'live' },
      tls: { key: server.keyPem, cert: server.certificatePem, ca: ca.certificatePem },
    });
    try {
      assert.deepEqual(await refresh(certs.b, appX, later), INVALID_CLIENT);
      assert.deepEqual(await accounts(certs.b, aisToken, appX, later), NOT_REGISTERED);
      const renewed = refreshed(await refresh(certs.d, appX, later));
      assert.equal((await accounts(certs.d, renewed, appX, later)).status, 200);
      // Adding it again does not take it back.
      assert.deepEqual(await addCertificate(certs.b, later), {
        status: 401,
        body: errorBody(401, 'Unauthorized', {
          code: 'CERTIFICATE_INVALID',
          text: 'The certificate has been removed by the bank',
        }),
      });
    } finally {
      await later.close();
    }
    // D revoked by its CA (a start with the new TLS_CRL): the TLS layer refuses it.
    const revoked = await sibling(gateway, {
      clock: time.clock,
      config: { mode: 'live' },
      tls: {
        key: server.keyPem,
        cert: server.certificatePem,
        ca: ca.certificatePem,
        crl: await createCrl(ca, [certs.d.serialNumber]),
      },
    });
    try {
      assert.deepEqual(await refresh(certs.d, appX, revoked), INVALID_CLIENT);
      assert.deepEqual(await accounts(certs.d, aisToken, appX, revoked), {
        status: 401,
        body: errorBody(401, 'Unauthorized', {
          code: 'CERTIFICATE_INVALID',
          text: 'The certificate has been revoked',
        }),
      });
    } finally {
      await revoked.close();
    }
  });
}
