// Live onboarding over real TLS connections on loopback, with certificates minted by the cert code:
// enrollment, rotation, refused certificates, the PSD2-ADMIN token and its binding.
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { simulatedEidApp } from '../../src/adapters/eid-simulator.ts';
import {
  createCa,
  createCrl,
  type Issued,
  issueQwac,
  issueServerCertificate,
} from '../../src/certificates/issue.ts';
import { type Gateway, startGateway } from '../helpers/gateway.ts';
import { errorBody } from '../helpers/http.ts';
import { type ClientCertificate, tlsRequest } from '../helpers/tls.ts';

const ORG = 'PSDSE-FINA-44059';
const HEADERS = { 'TPP-Request-ID': 'r-1', 'TPP-Transaction-ID': 't-1', Accept: 'application/json' };

describe('third parties over mutual TLS', () => {
  let ca: Issued;
  let gateway: Gateway;
  let origin: string;
  const certs = {} as Record<
    'good' | 'rotated' | 'aisOnly' | 'other' | 'expired' | 'revoked' | 'roleless' | 'untrusted',
    Issued
  >;

  before(async () => {
    ca = await createCa();
    const untrustedCa = await createCa('CN=Someone else,O=Elsewhere,C=SE');
    const server = await issueServerCertificate(ca);
    certs.good = await issueQwac(ca, {
      organizationIdentifier: ORG,
      organizationName: 'Budget Buddy AB',
      roles: ['PSP_PI', 'PSP_AI'],
    });
    certs.rotated = await issueQwac(ca, {
      organizationIdentifier: ORG,
      organizationName: 'Budget Buddy AB',
      roles: ['PSP_PI'],
    });
    certs.aisOnly = await issueQwac(ca, {
      organizationIdentifier: ORG,
      organizationName: 'Budget Buddy AB',
      roles: ['PSP_AI'],
    });
    certs.other = await issueQwac(ca, {
      organizationIdentifier: 'PSDSE-FINA-55555',
      organizationName: 'Other TPP AB',
      roles: ['PSP_PI'],
    });
    certs.expired = await issueQwac(ca, {
      organizationIdentifier: ORG,
      organizationName: 'Budget Buddy AB',
      roles: ['PSP_PI'],
      notBefore: new Date(Date.now() - 20 * 86_400_000),
      notAfter: new Date(Date.now() - 86_400_000),
    });
    certs.revoked = await issueQwac(ca, {
      organizationIdentifier: ORG,
      organizationName: 'Budget Buddy AB',
      roles: ['PSP_PI'],
    });
    certs.roleless = await issueQwac(ca, {
      organizationIdentifier: 'PSDSE-FINA-66666',
      organizationName: 'Agent AB',
      roles: ['PSP_AS'],
    });
    certs.untrusted = await issueQwac(untrustedCa, {
      organizationIdentifier: ORG,
      organizationName: 'Budget Buddy AB',
      roles: ['PSP_PI'],
    });
    const crl = await createCrl(ca, [certs.revoked.serialNumber]);
    gateway = await startGateway({
      config: { mode: 'live' },
      tls: { key: server.keyPem, cert: server.certificatePem, ca: ca.certificatePem, crl },
    });
    origin = gateway.url;
  });
  after(() => gateway?.close());

  function call(
    method: string,
    path: string,
    client?: ClientCertificate,
    body?: unknown,
    headers: Record<string, string> = {},
  ) {
    return tlsRequest(origin + path, {
      method,
      ca: ca.certificatePem,
      ...(client === undefined ? {} : { client }),
      headers: {
        ...HEADERS,
        ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
        ...headers,
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  }

  const base64 = (issued: Issued) =>
    Buffer.from(new X509Certificate(issued.certificatePem).raw).toString('base64');

  test('enrollment: 201 with the TPP id from the organizationIdentifier, then the same id again', async () => {
    assert.deepEqual(await call('POST', '/psd2/v1/third-parties', certs.good), {
      status: 201,
      body: { clientId: 'SE-FINA-44059' },
    });
    assert.deepEqual(await call('POST', '/psd2/v1/third-parties', certs.good), {
      status: 200,
      body: { clientId: 'SE-FINA-44059' },
    });
  });

  test('refused certificates', async () => {
    const cases: [ClientCertificate | undefined, number, string, string][] = [
      [
        undefined,
        401,
        'CERTIFICATE_MISSING',
        'A qualified certificate (QWAC or OBWAC) must be presented in TLS',
      ],
      [certs.untrusted, 401, 'CERTIFICATE_INVALID', 'The certificate is not issued by a trusted authority'],
      [certs.expired, 401, 'CERTIFICATE_EXPIRED', 'The certificate has expired'],
      [certs.revoked, 401, 'CERTIFICATE_INVALID', 'The certificate has been revoked'],
      [
        certs.roleless,
        403,
        'ROLE_INVALID',
        'The certificate carries none of the roles PSP_PI, PSP_AI, PSP_IC',
      ],
    ];
    const messages: Record<number, string> = { 401: 'Unauthorized', 403: 'Forbidden' };
    for (const [client, status, code, text] of cases) {
      assert.deepEqual(
        await call('POST', '/psd2/v1/third-parties', client),
        { status, body: errorBody(status, messages[status]!, { code, text }) },
        code,
      );
    }
  });

  test('PUT adds a certificate (the one used in TLS), keeping the TPP id', async () => {
    await call('POST', '/psd2/v1/third-parties', certs.good);
    assert.deepEqual(
      await call('PUT', '/psd2/v1/third-parties', certs.rotated, {
        clientCertificate: base64(certs.rotated),
      }),
      { status: 200, body: { clientId: 'SE-FINA-44059' } },
    );
    const mismatch = await call('PUT', '/psd2/v1/third-parties', certs.rotated, {
      clientCertificate: base64(certs.good),
    });
    assert.deepEqual(mismatch, {
      status: 401,
      body: errorBody(401, 'Unauthorized', {
        code: 'CERTIFICATE_INVALID',
        path: 'clientCertificate',
        text: 'clientCertificate must be the certificate used in TLS',
      }),
    });
    const spaced = await call('PUT', '/psd2/v1/third-parties', certs.rotated, {
      clientCertificate: `${base64(certs.rotated).slice(0, 20)}\n${base64(certs.rotated).slice(20)}`,
    });
    assert.equal(spaced.status, 400);
    const unknown = await call('PUT', '/psd2/v1/third-parties', certs.other, {
      clientCertificate: base64(certs.other),
    });
    assert.deepEqual(unknown, {
      status: 404,
      body: errorBody(404, 'Not Found', {
        code: 'RESOURCE_UNKNOWN',
        text: 'PSDSE-FINA-55555 is not enrolled: POST /psd2/v1/third-parties first',
      }),
    });
  });

  test('PSD2-ADMIN token: 7776000 s over TLS with one of the TPP certificates, and only then', async () => {
    await call('POST', '/psd2/v1/third-parties', certs.good);
    await call('POST', '/psd2/v1/third-parties', certs.other);
    const form = (client?: ClientCertificate) =>
      tlsRequest(`${origin}/oauth2/token/1.0`, {
        method: 'POST',
        ca: ca.certificatePem,
        ...(client === undefined ? {} : { client }),
        headers: { 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'application/json' },
        body: new URLSearchParams({
          grant_type: 'client_credentials',
          scope: 'PSD2-ADMIN',
          client_id: 'SE-FINA-44059',
        }).toString(),
      });
    const granted = await form(certs.good);
    const body = granted.body as { access_token: string };
    assert.deepEqual(granted, {
      status: 200,
      body: { access_token: body.access_token, expires_in: 7776000, token_type: 'Bearer' },
    });
    const invalid = {
      status: 401,
      body: { error: 'invalid_client', error_description: 'client authentication failed' },
    };
    assert.deepEqual(await form(certs.other), invalid, "another TPP's certificate");
    assert.deepEqual(await form(undefined), invalid, 'no certificate');
  });

  async function adminToken(client: ClientCertificate): Promise<string> {
    const answer = await tlsRequest(`${origin}/oauth2/token/1.0`, {
      method: 'POST',
      ca: ca.certificatePem,
      client,
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'client_credentials',
        scope: 'PSD2-ADMIN',
        client_id: 'SE-FINA-44059',
      }).toString(),
    });
    return (answer.body as { access_token: string }).access_token;
  }

  function subscribe(
    client: ClientCertificate,
    token: string,
    body: unknown,
    requestId = `r-${Math.random()}`,
  ) {
    return call('POST', '/psd2/v1/subscriptions', client, body, {
      'X-Gateway-Client-Id': 'SE-FINA-44059',
      Authorization: `Bearer ${token}`,
      'TPP-Request-ID': requestId,
    });
  }

  test('subscriptions: register an app, add a product; roles, names, one redirect URI, bound tokens', async () => {
    await call('POST', '/psd2/v1/third-parties', certs.good);
    await call('PUT', '/psd2/v1/third-parties', certs.rotated, { clientCertificate: base64(certs.rotated) });
    const token = await adminToken(certs.good);
    const app = {
      name: 'Budget Buddy',
      description: 'Pays your bills',
      oauthRedirectURI: 'https://buddy.example/cb',
    };
    const registered = await subscribe(certs.good, token, { app, product: { name: 'payments-se-private' } });
    const body = registered.body as { clientId: string; subscription: { subscriptionId: string } };
    assert.equal(registered.status, 200, JSON.stringify(registered.body));
    assert.match(
      body.clientId,
      /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/,
      'live app ids are UUIDs with dashes',
    );
    assert.deepEqual(body, {
      ...app,
      notificationHosts: [],
      clientId: body.clientId,
      subscription: {
        subscriptionId: body.subscription.subscriptionId,
        product: { name: 'payments-se-private', version: '1.0.2', scope: 'PIS' },
      },
    });
    const added = await subscribe(certs.good, token, {
      clientId: body.clientId,
      product: { name: 'accounts' },
    });
    const addedBody = added.body as { subscription: { subscriptionId: string } };
    assert.deepEqual(added, {
      status: 200,
      body: {
        ...app,
        notificationHosts: [],
        clientId: body.clientId,
        subscription: {
          subscriptionId: addedBody.subscription.subscriptionId,
          product: { name: 'accounts', version: '2.0.0', scope: 'AIS' },
        },
      },
    });

    const unknown = await subscribe(certs.good, token, {
      clientId: body.clientId,
      product: { name: 'loans' },
    });
    assert.deepEqual(unknown, {
      status: 404,
      body: errorBody(404, 'Not Found', {
        code: 'PRODUCT_UNKNOWN',
        path: 'product.name',
        text: 'product.name names no API product of the bank',
      }),
    });
    const twoUris = await subscribe(certs.good, token, {
      app: { ...app, oauthRedirectURI: 'https://a.example/cb https://b.example/cb' },
      product: { name: 'payments' },
    });
    assert.equal(twoUris.status, 400);
    assert.equal(
      (twoUris.body as { tppMessages: { path: string }[] }).tppMessages[0]!.path,
      'app.oauthRedirectURI',
    );

    // The admin token issued over the first certificate works over the one added with PUT (spec row 3);
    // another TPP's certificate gets nothing of it.
    const renewed = await subscribe(certs.rotated, token, {
      clientId: body.clientId,
      product: { name: 'payments-gb' },
    });
    const renewedBody = renewed.body as { subscription: { subscriptionId: string } };
    assert.deepEqual(renewed, {
      status: 200,
      body: {
        ...app,
        notificationHosts: [],
        clientId: body.clientId,
        subscription: {
          subscriptionId: renewedBody.subscription.subscriptionId,
          product: { name: 'payments-gb', version: '1.0.2', scope: 'PIS' },
        },
      },
    });
    await call('POST', '/psd2/v1/third-parties', certs.other);
    assert.deepEqual(
      await subscribe(certs.other, token, { clientId: body.clientId, product: { name: 'payments-lu' } }),
      {
        status: 401,
        body: errorBody(401, 'Unauthorized', {
          code: 'TOKEN_INVALID',
          text: 'The access token is bound to another certificate',
        }),
      },
    );
    const rotatedToken = await adminToken(certs.rotated);
    const missingRole = await subscribe(certs.rotated, rotatedToken, {
      clientId: body.clientId,
      product: { name: 'card-accounts' },
    });
    assert.deepEqual(missingRole, {
      status: 403,
      body: errorBody(403, 'Forbidden', {
        code: 'ROLE_INVALID',
        text: 'card-accounts needs the AIS role in the certificate',
      }),
    });
  });

  test('every live PIS call: the TPP of the certificate, its role, the subscription, the bound token', async () => {
    await call('POST', '/psd2/v1/third-parties', certs.good);
    await call('POST', '/psd2/v1/third-parties', certs.other);
    await call('PUT', '/psd2/v1/third-parties', certs.rotated, { clientCertificate: base64(certs.rotated) });
    await call('PUT', '/psd2/v1/third-parties', certs.aisOnly, { clientCertificate: base64(certs.aisOnly) });
    const admin = await adminToken(certs.good);
    const app = { name: 'Payer', description: '', oauthRedirectURI: 'https://payer.example/cb' };
    const registered = (await subscribe(certs.good, admin, { app, product: { name: 'payments-se-private' } }))
      .body as { clientId: string };
    const tokenOver = (client: ClientCertificate | undefined) =>
      tlsRequest(`${origin}/oauth2/token/1.0`, {
        method: 'POST',
        ca: ca.certificatePem,
        ...(client === undefined ? {} : { client }),
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'client_credentials',
          scope: 'PIS',
          client_id: registered.clientId,
        }).toString(),
      });
    assert.deepEqual(await tokenOver(certs.other), {
      status: 401,
      body: { error: 'invalid_client', error_description: 'client authentication failed' },
    });
    const pis = ((await tokenOver(certs.good)).body as { access_token: string }).access_token;
    const payment = {
      debtorAccount: { value: '6000123456789', accountType: 'BBAN' },
      creditorAccount: { value: '6789555555550', accountType: 'BBAN' },
      instructedAmount: { currency: 'SEK', amount: '10.00' },
    };
    const initiate = (
      client: ClientCertificate,
      path = '/psd2/se/v2/payments/private/single/handelsbanken-domestic-credit-transfer',
      extra: Record<string, string> = {},
    ) =>
      call('POST', path, client, payment, {
        'X-Gateway-Client-Id': registered.clientId,
        Authorization: `Bearer ${pis}`,
        'PSU-IP-Address': '198.51.100.2',
        ...extra,
      });
    const ok = await initiate(certs.good);
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
    assert.deepEqual(await initiate(certs.other), {
      status: 401,
      body: errorBody(401, 'Unauthorized', {
        code: 'CERTIFICATE_INVALID',
        text: 'The certificate does not belong to the TPP of this app',
      }),
    });
    // A token issued over one of the TPP's certificates works over the others it added (spec row 3).
    const renewed = await initiate(certs.rotated);
    assert.equal(renewed.status, 200, JSON.stringify(renewed.body));
    assert.deepEqual(await initiate(certs.aisOnly), {
      status: 403,
      body: errorBody(403, 'Forbidden', {
        code: 'ROLE_INVALID',
        text: 'This interface needs the PIS role in the certificate',
      }),
    });
    assert.deepEqual(
      await initiate(certs.good, '/psd2/v1/payments/handelsbanken-domestic-credit-transfer', {
        Country: 'SE',
      }),
      {
        status: 403,
        body: errorBody(403, 'Forbidden', {
          code: 'PRODUCT_INVALID',
          text: 'The app is not subscribed to payments',
        }),
      },
    );
    const missing = await initiate(undefined as unknown as ClientCertificate);
    assert.deepEqual(missing, {
      status: 401,
      body: errorBody(401, 'Unauthorized', {
        code: 'CERTIFICATE_MISSING',
        text: 'A qualified certificate (QWAC or OBWAC) must be presented in TLS',
      }),
    });
  });

  test('live notifications: https on a host the app registered, never a private address', async () => {
    await call('POST', '/psd2/v1/third-parties', certs.good);
    const admin = await adminToken(certs.good);
    const app = {
      name: 'Notified',
      description: '',
      oauthRedirectURI: 'https://notified.example/cb',
      notificationHosts: ['notify.notified.example'],
    };
    const registered = await subscribe(certs.good, admin, { app, product: { name: 'payments-se-private' } });
    assert.equal(registered.status, 200, JSON.stringify(registered.body));
    const { clientId } = registered.body as { clientId: string };
    assert.deepEqual((registered.body as { notificationHosts: string[] }).notificationHosts, [
      'notify.notified.example',
    ]);
    const badHost = await subscribe(certs.good, admin, {
      app: { ...app, notificationHosts: ['Not A Host'] },
      product: { name: 'payments-se-private' },
    });
    assert.equal(badHost.status, 400, JSON.stringify(badHost.body));
    const token = await tlsRequest(`${origin}/oauth2/token/1.0`, {
      method: 'POST',
      ca: ca.certificatePem,
      client: certs.good,
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'client_credentials',
        scope: 'PIS',
        client_id: clientId,
      }).toString(),
    });
    const pis = (token.body as { access_token: string }).access_token;
    const initiate = (uri: string) =>
      call(
        'POST',
        '/psd2/se/v2/payments/private/single/handelsbanken-domestic-credit-transfer',
        certs.good,
        {
          debtorAccount: { value: '6000123456789', accountType: 'BBAN' },
          creditorAccount: { value: '6789555555550', accountType: 'BBAN' },
          instructedAmount: { currency: 'SEK', amount: '10.00' },
        },
        {
          'X-Gateway-Client-Id': clientId,
          Authorization: `Bearer ${pis}`,
          'PSU-IP-Address': '198.51.100.2',
          'TPP-Notification-URI': uri,
        },
      );
    const refused = (text: string) => ({
      status: 400,
      body: errorBody(400, 'Bad Request', {
        code: 'FORMAT_ERROR',
        path: 'TPP-Notification-URI',
        text: `TPP-Notification-URI ${text}`,
      }),
    });
    assert.deepEqual(
      await initiate('http://notify.notified.example/psd2'),
      refused('must be one absolute https: URI'),
    );
    assert.deepEqual(
      await initiate('https://elsewhere.example/psd2'),
      refused(
        "must be on one of the app's registered notification hosts (onboarding: app.notificationHosts)",
      ),
    );
    for (const address of [
      '127.0.0.1',
      '10.0.0.8',
      '169.254.169.254',
      '[::1]',
      '[fd00::1]',
      '[::ffff:192.168.1.1]',
    ]) {
      assert.deepEqual(
        await initiate(`https://${address}/psd2`),
        refused('must not name a private, loopback, link-local or multicast address'),
        address,
      );
    }
    const accepted = await initiate('https://notify.notified.example/psd2');
    assert.equal(accepted.status, 200, JSON.stringify(accepted.body));
    assert.deepEqual(
      (accepted.body as { tppNotificationContentPreferred: string[] }).tppNotificationContentPreferred,
      ['PROCESS'],
    );
  });

  test('live AIS calls: the AIS role; consents need the consents subscription (spec rule 3)', async () => {
    await call('POST', '/psd2/v1/third-parties', certs.good);
    await call('PUT', '/psd2/v1/third-parties', certs.rotated, { clientCertificate: base64(certs.rotated) });
    const admin = await adminToken(certs.good);
    const app = { name: 'Budget', description: '', oauthRedirectURI: 'https://budget.example/cb' };
    const registered = (await subscribe(certs.good, admin, { app, product: { name: 'accounts' } })).body as {
      clientId: string;
    };
    const token = await tlsRequest(`${origin}/oauth2/token/1.0`, {
      method: 'POST',
      ca: ca.certificatePem,
      client: certs.good,
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'client_credentials',
        scope: 'AIS',
        client_id: registered.clientId,
      }).toString(),
    });
    const ais = (token.body as { access_token: string }).access_token;
    const consent = (client: ClientCertificate) =>
      call(
        'POST',
        '/psd2/v1/consents',
        client,
        { access: 'ALL_ACCOUNTS' },
        {
          'X-Gateway-Client-Id': registered.clientId,
          Authorization: `Bearer ${ais}`,
          'TPP-Request-ID': `c-${Math.random()}`,
        },
      );
    assert.deepEqual(await consent(certs.good), {
      status: 403,
      body: errorBody(403, 'Forbidden', {
        code: 'PRODUCT_INVALID',
        text: 'The app is not subscribed to consents',
      }),
    });
    const added = await subscribe(certs.good, admin, {
      clientId: registered.clientId,
      product: { name: 'consents' },
    });
    assert.equal(added.status, 200, JSON.stringify(added.body));
    const created = await consent(certs.good);
    assert.equal(created.status, 201, JSON.stringify(created.body));
    assert.equal((created.body as { consentStatus: string }).consentStatus, 'received');

    // The PSU signs in the e-ID app (decoupled v1 names the PSU); the refresh token is bound to the
    // TPP's certificates: the one the tokens were issued over and those it added (spec row 3).
    const consentId = (created.body as { consentId: string }).consentId;
    const overTls = (url: string, client: ClientCertificate, body: unknown, type = 'application/json') =>
      tlsRequest(url, {
        method: 'POST',
        ca: ca.certificatePem,
        client,
        headers: { 'Content-Type': type },
        body: typeof body === 'string' ? body : JSON.stringify(body),
      });
    const init = await overTls(`${origin}/decoupled/mbid/initAuthorization/1.0`, certs.good, {
      psu_id: '191212121212',
      psu_id_type: '1',
      psu_client_ip: '192.0.2.1',
      scope: `AIS:${consentId}`,
      client_id: registered.clientId,
    });
    assert.equal(init.status, 200, JSON.stringify(init.body));
    const eidApp = simulatedEidApp(gateway.store.db);
    const order = (await eidApp.find('191212121212', new Date()))!;
    assert.equal(await eidApp.open(order.orderRef, new Date()), true);
    assert.equal(await eidApp.approve(order.orderRef, new Date()), true);
    const polled = await overTls(
      (init.body as { _links: { token: { href: string } } })._links.token.href,
      certs.good,
      {},
    );
    const psuTokens = polled.body as { result: string; refresh_token: string };
    assert.equal(psuTokens.result, 'COMPLETE', JSON.stringify(psuTokens));
    const refresh = (client: ClientCertificate) =>
      overTls(
        `${origin}/oauth2/token/1.0`,
        client,
        new URLSearchParams({
          grant_type: 'refresh_token',
          refresh_token: psuTokens.refresh_token,
          client_id: registered.clientId,
        }).toString(),
        'application/x-www-form-urlencoded',
      );
    assert.equal((await refresh(certs.good)).status, 200);
    assert.equal((await refresh(certs.rotated)).status, 200);

    assert.deepEqual(await consent(certs.rotated), {
      status: 403,
      body: errorBody(403, 'Forbidden', {
        code: 'ROLE_INVALID',
        text: 'This interface needs the AIS role in the certificate',
      }),
    });
    const cards = await call('GET', '/psd2/v1/card-accounts', certs.good, undefined, {
      'X-Gateway-Client-Id': registered.clientId,
      Authorization: `Bearer ${ais}`,
    });
    assert.deepEqual(cards, {
      status: 403,
      body: errorBody(403, 'Forbidden', {
        code: 'PRODUCT_INVALID',
        text: 'The app is not subscribed to card-accounts',
      }),
    });
  });
});

describe('onboarding rehearsed in the sandbox, without a certificate', () => {
  let gateway: Gateway;
  before(async () => {
    gateway = await startGateway();
  });
  after(() => gateway.close());

  test('a sandbox TPP id, its admin token, an app id without dashes', async () => {
    const client = gateway.client;
    const enrolled = await client.request<{ clientId: string }>('POST', '/psd2/v1/third-parties', {
      headers: HEADERS,
    });
    assert.equal(enrolled.status, 201);
    const tppId = enrolled.body.clientId;
    assert.match(tppId, /^XX-SANDBOX-\d{8}$/);
    const token = await client.request<{ access_token: string; expires_in: number }>(
      'POST',
      '/oauth2/token/1.0',
      {
        form: { grant_type: 'client_credentials', scope: 'PSD2-ADMIN', client_id: tppId },
      },
    );
    assert.deepEqual([token.status, token.body.expires_in], [200, 7776000]);
    const registered = await client.request<{ clientId: string }>('POST', '/psd2/v1/subscriptions', {
      headers: {
        ...HEADERS,
        'X-Gateway-Client-Id': tppId,
        Authorization: `Bearer ${token.body.access_token}`,
      },
      json: {
        app: { name: 'Rehearsal', description: '', oauthRedirectURI: 'http://localhost:8080/cb' },
        product: { name: 'payments' },
      },
    });
    assert.equal(registered.status, 200, JSON.stringify(registered.body));
    assert.match(registered.body.clientId, /^[0-9a-f]{32}$/);
    const pis = await client.request('POST', '/oauth2/token/1.0', {
      form: { grant_type: 'client_credentials', scope: 'PIS', client_id: registered.body.clientId },
    });
    assert.equal(pis.status, 200, 'the new app gets PIS tokens');
  });
});
