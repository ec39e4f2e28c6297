// The decoupled flow in the sandbox (spec rows 9-11): COMPLETE at the first poll, cancel without effect.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { InitiationRequest } from '@psd2-gateway/client';
import { type InitAnswer, initDecoupled, postLink, UNKNOWN_SESSION } from '../helpers/decoupled.ts';
import { type Gateway, startGateway } from '../helpers/gateway.ts';
import { call, statusAndBody } from '../helpers/http.ts';
import { ACCOUNTS, domestic, sepa } from '../helpers/payments.ts';

let gateway: Gateway;
let token: string;
before(async () => {
  gateway = await startGateway();
  token = await gateway.client.clientCredentialsToken();
});
after(() => gateway.close());

async function payment(
  path = '/psd2/se/v2/payments/private/single/handelsbanken-domestic-credit-transfer',
  body: InitiationRequest = domestic(),
  country?: string,
) {
  const answer = await gateway.client.initiate(token, {
    path,
    body,
    ...(country === undefined ? {} : { country }),
  });
  assert.equal(answer.status, 200, JSON.stringify(answer.body));
  return answer.body.paymentId;
}

function request(paymentId: string, sameDevice = true) {
  return {
    client_id: gateway.sandboxApp.clientId,
    scope: `PIS:${paymentId}`,
    psu_client_ip: '192.0.2.10',
    bisa_same_device: sameDevice,
  };
}

const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';
const oauthError = (error: string, error_description: string) => ({
  status: 400,
  body: { error, error_description },
});

test('same device: an auto-start token, links, then COMPLETE at the first poll', async () => {
  const paymentId = await payment();
  const init = await initDecoupled(gateway, request(paymentId));
  assert.equal(init.status, 200);
  const body = init.body as InitAnswer;
  assert.match(body.auto_start_token!, new RegExp(`^${UUID}$`));
  const sessionId = new URL(body._links.token.href).searchParams.get('sessionId')!;
  assert.match(sessionId, /^[A-Za-z0-9_-]{43}$/);
  assert.deepEqual(body, {
    auto_start_token: body.auto_start_token,
    sleep_time: 2000,
    _links: {
      token: {
        href: `http://gateway.test/decoupled/eid/token/2.0?sessionId=${sessionId}`,
        hints: { allow: ['POST'] },
      },
      cancel: {
        href: `http://gateway.test/decoupled/eid/cancel/2.0?sessionId=${sessionId}`,
        hints: { allow: ['POST'] },
      },
    },
  });
  const polled = await postLink(gateway, body._links.token.href);
  assert.equal(polled.status, 200);
  const result = polled.body as { result: string; access_token: string };
  assert.deepEqual(result, {
    result: 'COMPLETE',
    access_token: result.access_token,
    token_type: 'Bearer',
    expires_in: 900,
  });
  const executed = await gateway.client.execute(
    'handelsbanken-domestic-credit-transfer',
    paymentId,
    result.access_token,
  );
  assert.deepEqual([executed.status, executed.body], [200, { paymentId, transactionStatus: 'ACCC' }]);
  assert.deepEqual(
    statusAndBody(await postLink(gateway, body._links.token.href)),
    oauthError('invalid_request', 'the session has ended'),
  );
});

test('other device: a complete animated QR code', async () => {
  const init = await initDecoupled(gateway, request(await payment(), false));
  const body = init.body as InitAnswer;
  assert.equal(body.auto_start_token, undefined);
  assert.match(body.qr_code!, new RegExp(`^bankid\\.${UUID}\\.0\\.[0-9a-f]{64}$`));
});

test('cancel is callable and has no effect in the sandbox', async () => {
  const body = (await initDecoupled(gateway, request(await payment()))).body as InitAnswer;
  const cancelled = await postLink(gateway, body._links.cancel.href);
  assert.equal(cancelled.status, 204);
  assert.equal(
    ((await postLink(gateway, body._links.token.href)).body as { result: string }).result,
    'COMPLETE',
  );
});

test("another app's poll or cancel answers as an unknown session's; the session goes on", async () => {
  const body = (await initDecoupled(gateway, request(await payment()))).body as InitAnswer;
  const other = (await gateway.addApp()).clientId;
  const unknownId = (href: string) => href.replace(/sessionId=[^&]+/, 'sessionId=nope');
  for (const href of [body._links.cancel.href, body._links.token.href]) {
    assert.deepEqual(statusAndBody(await postLink(gateway, unknownId(href))), UNKNOWN_SESSION);
    for (const stranger of [
      { headers: { 'X-Gateway-Client-Id': other } },
      { json: { client_id: other } },
      { json: { client_id: 42 } },
    ]) {
      assert.deepEqual(statusAndBody(await postLink(gateway, href, stranger)), UNKNOWN_SESSION, href);
    }
  }
  // Its own app, named or not, polls it to the end.
  const own = await postLink(gateway, body._links.token.href, {
    headers: { 'X-Gateway-Client-Id': gateway.sandboxApp.clientId },
  });
  const token = (own.body as { access_token: string }).access_token;
  assert.deepEqual(statusAndBody(own), {
    status: 200,
    body: { result: 'COMPLETE', access_token: token, token_type: 'Bearer', expires_in: 900 },
  });
});

test('a PSU token from the decoupled flow is good for its payment only', async () => {
  const first = await payment();
  const second = await payment();
  const body = (await initDecoupled(gateway, request(first))).body as InitAnswer;
  const psuToken = ((await postLink(gateway, body._links.token.href)).body as { access_token: string })
    .access_token;
  const other = await gateway.client.execute('handelsbanken-domestic-credit-transfer', second, psuToken);
  assert.equal(other.status, 401);
});

test('errors of the initiation request', async () => {
  const paymentId = await payment();
  const other = await gateway.addApp();
  const otherToken = await other.clientCredentialsToken();
  const theirs = await other.initiate(otherToken, {
    path: '/psd2/se/v2/payments/private/single/handelsbanken-domestic-credit-transfer',
    body: domestic(),
  });
  const dutch = await payment('/psd2/v1/payments/sepa-credit-transfer', sepa(ACCOUNTS.nl.iban!), 'NL');
  const cases: [Record<string, unknown>, { status: number; body: unknown }][] = [
    [
      { ...request(paymentId), client_id: 'nobody' },
      oauthError('unauthorized_client', 'client_id is not a registered app'),
    ],
    [
      { ...request(paymentId), psu_client_ip: '300.1.2.3' },
      oauthError('invalid_request', 'psu_client_ip must be an IPv4 or IPv6 address'),
    ],
    [
      { ...request(paymentId), psu_client_ip: '2001:db8::1' },
      { status: 200, body: undefined },
    ],
    [
      { ...request(paymentId), scope: 'PIS' },
      oauthError('invalid_request', 'scope must be PIS:<paymentId> or AIS:<consentId>'),
    ],
    [
      request(theirs.body.paymentId),
      oauthError('invalid_request', 'scope names no payment or consent of this app'),
    ],
    [
      request(dutch),
      oauthError('invalid_request', 'decoupled authorization is offered for Swedish payments only'),
    ],
    [
      { ...request(paymentId), bisa_same_device: 'yes' },
      oauthError('invalid_request', 'bisa_same_device must be boolean'),
    ],
    [{ client_id: gateway.sandboxApp.clientId }, oauthError('invalid_request', 'scope is required')],
  ];
  for (const [body, expected] of cases) {
    const answer = await initDecoupled(gateway, body);
    if (expected.body === undefined) assert.equal(answer.status, expected.status);
    else assert.deepEqual(statusAndBody(answer), expected, JSON.stringify(body));
  }
});

test('errors of the token and cancel calls', async () => {
  for (const action of ['token', 'cancel']) {
    const unknown = await call(gateway.app, 'POST', `/decoupled/eid/${action}/2.0?sessionId=nope`, {
      json: {},
    });
    assert.deepEqual(statusAndBody(unknown), oauthError('invalid_request', 'sessionId is not known'));
    const missing = await call(gateway.app, 'POST', `/decoupled/eid/${action}/2.0`, { json: {} });
    assert.deepEqual(statusAndBody(missing), oauthError('invalid_request', 'sessionId is required'));
  }
});
