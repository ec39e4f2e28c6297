// GET /oauth2/authorize/1.0: the sandbox answers the code at once; errors go back to a registered
// redirect URI, and never to an unregistered one.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { pageText } from '../helpers/decoupled.ts';
import { type Gateway, startGateway } from '../helpers/gateway.ts';
import { BAD_REQUEST, call, statusAndBody } from '../helpers/http.ts';
import { domestic } from '../helpers/payments.ts';

let gateway: Gateway;
let paymentId: string;
before(async () => {
  gateway = await startGateway();
  const cc = await gateway.client.clientCredentialsToken();
  const answer = await gateway.client.initiate(cc, {
    path: '/psd2/se/v2/payments/private/single/handelsbanken-domestic-credit-transfer',
    body: domestic(),
  });
  paymentId = answer.body.paymentId;
});
after(() => gateway.close());

function authorizeUrl(parameters: Record<string, string>, path = '/oauth2/authorize/1.0') {
  return `${path}?${new URLSearchParams(parameters)}`;
}

function valid(): Record<string, string> {
  return {
    response_type: 'code',
    scope: `PIS:${paymentId}`,
    client_id: gateway.sandboxApp.clientId,
    state: 'opaque-state',
    redirect_uri: gateway.sandboxApp.redirectUri,
  };
}

async function redirectQuery(parameters: Record<string, string>, path?: string) {
  const answer = await call(gateway.app, 'GET', authorizeUrl(parameters, path), {
    headers: { accept: 'application/json' },
  });
  assert.equal(answer.status, 302, JSON.stringify(answer.body));
  const location = new URL(String(answer.headers.location));
  assert.equal(`${location.origin}${location.pathname}`, gateway.sandboxApp.redirectUri);
  return Object.fromEntries(location.searchParams);
}

test('the code comes back at once with the state, on both paths', async () => {
  for (const path of ['/oauth2/authorize/1.0', '/redirect/oauth2/authorize/1.0']) {
    const query = await redirectQuery(valid(), path);
    assert.deepEqual(Object.keys(query).sort(), ['code', 'state']);
    assert.equal(query.state, 'opaque-state');
    assert.match(query.code!, /^[A-Za-z0-9_-]{43}$/);
  }
});

test('errors go back to the registered redirect URI', async () => {
  const cases: [Record<string, string>, Record<string, string>][] = [
    [
      { ...valid(), response_type: 'token' },
      {
        error: 'unsupported_response_type',
        error_description: 'response_type must be code',
        state: 'opaque-state',
      },
    ],
    [
      { ...valid(), state: '' },
      { error: 'invalid_request', error_description: 'state is required' },
    ],
    [
      { ...valid(), scope: 'AIS' },
      {
        error: 'invalid_scope',
        error_description: 'scope must be PIS:<paymentId> or AIS:<consentId>',
        state: 'opaque-state',
      },
    ],
    [
      { ...valid(), scope: 'PIS:00000000-0000-4000-8000-000000000000' },
      {
        error: 'invalid_scope',
        error_description: 'scope names no payment or consent of this app',
        state: 'opaque-state',
      },
    ],
    [
      { ...valid(), code_challenge: 'abc', code_challenge_method: 'plain' },
      {
        error: 'invalid_request',
        error_description: 'code_challenge_method must be S256',
        state: 'opaque-state',
      },
    ],
  ];
  for (const [parameters, expected] of cases)
    assert.deepEqual(await redirectQuery(parameters), expected, JSON.stringify(parameters));
});

test("another app's payment is not in scope", async () => {
  const other = await gateway.addApp();
  const query = await redirectQuery({
    ...valid(),
    client_id: other.clientId,
    redirect_uri: other.redirectUri,
  }).catch(() => undefined);
  // The other app's redirect URI differs: the assertion on the origin fails, so look at the raw answer.
  const answer = await call(
    gateway.app,
    'GET',
    authorizeUrl({ ...valid(), client_id: other.clientId, redirect_uri: other.redirectUri }),
  );
  assert.equal(query, undefined);
  assert.equal(answer.status, 302);
  const location = new URL(String(answer.headers.location));
  assert.equal(`${location.origin}${location.pathname}`, other.redirectUri);
  assert.deepEqual(Object.fromEntries(location.searchParams), {
    error: 'invalid_scope',
    error_description: 'scope names no payment or consent of this app',
    state: 'opaque-state',
  });
});

test('never a redirect to an unknown client or an unregistered URI', async () => {
  const unknown = await call(gateway.app, 'GET', authorizeUrl({ ...valid(), client_id: 'nobody' }));
  assert.deepEqual(
    statusAndBody(unknown),
    BAD_REQUEST({ code: 'CLIENT_UNKNOWN', path: 'client_id', text: 'client_id is not a registered app' }),
  );
  for (const uri of ['https://evil.example/callback', `${gateway.sandboxApp.redirectUri}/x`, '']) {
    const answer = await call(gateway.app, 'GET', authorizeUrl({ ...valid(), redirect_uri: uri }));
    assert.deepEqual(
      statusAndBody(answer),
      BAD_REQUEST({
        code: 'FORMAT_ERROR',
        path: 'redirect_uri',
        text: "redirect_uri is not the app's registered redirect URI",
      }),
    );
    assert.equal(answer.headers.location, undefined);
  }
  const { client_id: _, ...noClient } = valid();
  assert.deepEqual(
    statusAndBody(await call(gateway.app, 'GET', authorizeUrl(noClient))),
    BAD_REQUEST({ code: 'FORMAT_ERROR', path: 'client_id', text: 'client_id is required' }),
  );
});

test('a parameter given twice', async () => {
  const url = `${authorizeUrl(valid())}&scope=PIS:${paymentId}`;
  const answer = await call(gateway.app, 'GET', url);
  assert.equal(answer.status, 302);
  assert.deepEqual(Object.fromEntries(new URL(String(answer.headers.location)).searchParams), {
    error: 'invalid_request',
    error_description: 'scope must be given once',
    state: 'opaque-state',
  });
});

test('an executed payment is no longer awaiting authorization', async () => {
  const client = gateway.client;
  const cc = await client.clientCredentialsToken();
  const initiated = await client.initiate(cc, {
    path: '/psd2/se/v2/payments/private/single/handelsbanken-domestic-credit-transfer',
    body: domestic(),
  });
  assert.equal(
    (await client.authorizeAndExecute('handelsbanken-domestic-credit-transfer', initiated.body.paymentId))
      .status,
    200,
  );
  assert.deepEqual(await redirectQuery({ ...valid(), scope: `PIS:${initiated.body.paymentId}` }), {
    error: 'invalid_scope',
    error_description: 'the payment is not awaiting authorization',
    state: 'opaque-state',
  });
});

test('a browser sent with a bad client or redirect URI gets a page (400) that names the mistake, echoes nothing and redirects nowhere', async () => {
  const BROWSER = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';
  const page = (mistake: string) =>
    `This link cannot be used The app that sent you here made a mistake (${mistake}). Nothing was approved or shared: go back to the app, or tell the people who make it.`;
  const evil = 'https://evil.example/<script>alert(1)</script>';
  const { client_id: _, ...noClient } = valid();
  const cases: [Record<string, string>, string][] = [
    [{ ...valid(), client_id: '<b>nobody</b>' }, 'client_id is not a registered app'],
    [{ ...valid(), redirect_uri: evil }, "redirect_uri is not the app's registered redirect URI"],
    [noClient, 'client_id is required'],
  ];
  for (const [parameters, mistake] of cases) {
    for (const accept of [BROWSER, 'text/html', 'application/json;q=0.5, text/html']) {
      const answer = await call(gateway.app, 'GET', authorizeUrl(parameters), { headers: { accept } });
      const body = String(answer.body);
      assert.deepEqual(
        {
          status: answer.status,
          type: answer.headers['content-type'],
          location: answer.headers.location,
          text: pageText(body),
        },
        { status: 400, type: 'text/html; charset=utf-8', location: undefined, text: page(mistake) },
        `${accept}: ${JSON.stringify(parameters)}`,
      );
      assert.doesNotMatch(body, /<script>|<b>|evil\.example|nobody/);
      assert.match(String(answer.headers['content-security-policy']), /^default-src 'none';/);
    }
  }
  // A client that asks for JSON, or for anything, keeps the API's body.
  for (const accept of [
    'application/json',
    '*/*',
    'application/json, text/html',
    'text/html;q=0.5, application/json',
  ]) {
    const answer = await call(gateway.app, 'GET', authorizeUrl({ ...valid(), client_id: 'nobody' }), {
      headers: { accept },
    });
    assert.deepEqual(
      statusAndBody(answer),
      BAD_REQUEST({ code: 'CLIENT_UNKNOWN', path: 'client_id', text: 'client_id is not a registered app' }),
      accept,
    );
  }
});
