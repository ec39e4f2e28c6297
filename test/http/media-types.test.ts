// JSON endpoints take application/json only (issue 17, item 7): a form body, text, XML, multipart or a
// body without a Content-Type is 415, in the API shape or (decoupled) the OAuth shape; the token
// endpoint and the PSU pages still take forms.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type Gateway, startGateway } from '../helpers/gateway.ts';
import { call, errorBody, statusAndBody } from '../helpers/http.ts';
import { ACCOUNTS, domestic } from '../helpers/payments.ts';

let gateway: Gateway;
let pis: string;
let ais: string;
let paymentId: string;
before(async () => {
  gateway = await startGateway();
  pis = await gateway.client.clientCredentialsToken();
  ais = await gateway.client.clientCredentialsToken('AIS');
  paymentId = (
    await gateway.client.initiate(pis, {
      path: '/psd2/se/v2/payments/private/single/handelsbanken-domestic-credit-transfer',
      body: domestic(),
    })
  ).body.paymentId;
});
after(() => gateway.close());

const UNSUPPORTED = {
  status: 415,
  body: errorBody(415, 'Unsupported Media Type', {
    code: 'UNSUPPORTED_MEDIA_TYPE',
    text: 'Content-Type must be application/json',
  }),
};
const UNSUPPORTED_OAUTH = {
  status: 415,
  body: { error: 'invalid_request', error_description: 'the body must be application/json' },
};

/** Other media types, each with a body that says what a JSON body would say. */
const OTHERS: [string | undefined, string][] = [
  ['application/x-www-form-urlencoded', 'access=ALL_ACCOUNTS'],
  ['application/x-www-form-urlencoded; charset=UTF-8', 'access=ALL_ACCOUNTS'],
  ['text/plain', '{"access":"ALL_ACCOUNTS"}'],
  ['application/xml', '<access>ALL_ACCOUNTS</access>'],
  [
    'multipart/form-data; boundary=x',
    '--x\r\nContent-Disposition: form-data; name="access"\r\n\r\nALL\r\n--x--',
  ],
  ['application/vnd.api+json', '{"access":"ALL_ACCOUNTS"}'],
  [undefined, '{"access":"ALL_ACCOUNTS"}'],
];

interface Endpoint {
  readonly method: 'POST' | 'PUT';
  readonly path: string;
  readonly headers: () => Record<string, string>;
  readonly expected: typeof UNSUPPORTED | typeof UNSUPPORTED_OAUTH;
}

const ENDPOINTS: Endpoint[] = [
  {
    method: 'POST',
    path: '/psd2/v1/payments/handelsbanken-domestic-credit-transfer',
    headers: () => ({ ...gateway.client.tppHeaders(pis), Country: 'SE' }),
    expected: UNSUPPORTED,
  },
  {
    method: 'POST',
    path: '/psd2/se/v2/payments/private/single/handelsbanken-domestic-credit-transfer',
    headers: () => gateway.client.tppHeaders(pis),
    expected: UNSUPPORTED,
  },
  {
    method: 'POST',
    path: '/psd2/se/v2/payments/private/signing-basket',
    headers: () => gateway.client.tppHeaders(pis),
    expected: UNSUPPORTED,
  },
  {
    method: 'PUT',
    path: '/psd2/v1/payments/handelsbanken-domestic-credit-transfer/{paymentId}',
    headers: () => gateway.client.tppHeaders(pis),
    expected: UNSUPPORTED,
  },
  {
    method: 'POST',
    path: '/psd2/v1/consents',
    headers: () => gateway.client.tppHeaders(ais),
    expected: UNSUPPORTED,
  },
  {
    method: 'POST',
    path: '/psd2/se/v2/payments/private/accounts/shorttermconsents',
    headers: () => gateway.client.tppHeaders(pis),
    expected: UNSUPPORTED,
  },
  {
    method: 'POST',
    path: '/psd2/v1/funds-confirmations',
    headers: () => gateway.client.tppHeaders(pis),
    expected: UNSUPPORTED,
  },
  {
    method: 'PUT',
    path: '/psd2/v1/third-parties',
    headers: () => ({ 'TPP-Request-ID': 'r-1', 'TPP-Transaction-ID': 't-1' }),
    expected: UNSUPPORTED,
  },
  { method: 'POST', path: '/sandbox/reset', headers: () => ({}), expected: UNSUPPORTED },
  {
    method: 'POST',
    path: '/decoupled/eid/initAuthorization/2.0',
    headers: () => ({}),
    expected: UNSUPPORTED_OAUTH,
  },
  {
    method: 'POST',
    path: '/decoupled/mbid/initAuthorization/1.0',
    headers: () => ({}),
    expected: UNSUPPORTED_OAUTH,
  },
  {
    method: 'POST',
    path: '/decoupled/eid/token/2.0?sessionId=s',
    headers: () => ({}),
    expected: UNSUPPORTED_OAUTH,
  },
  {
    method: 'POST',
    path: '/decoupled/eid/cancel/2.0?sessionId=s',
    headers: () => ({}),
    expected: UNSUPPORTED_OAUTH,
  },
];

test('JSON endpoints answer 415 to forms and every other media type, and to a body without one', async () => {
  let count = 0;
  for (const endpoint of ENDPOINTS) {
    const path = endpoint.path.replace('{paymentId}', paymentId);
    for (const [contentType, payload] of OTHERS) {
      const answer = await call(gateway.app, endpoint.method, path, {
        headers: {
          ...endpoint.headers(),
          'TPP-Request-ID': `r-${count++}`,
          ...(contentType === undefined ? {} : { 'content-type': contentType }),
        },
        payload,
      });
      assert.deepEqual(
        statusAndBody(answer),
        endpoint.expected,
        `${endpoint.method} ${endpoint.path} ${contentType}`,
      );
    }
  }
});

test('application/json with a charset parameter is JSON', async () => {
  const answer = await call(gateway.app, 'POST', '/psd2/v1/consents', {
    headers: { ...gateway.client.tppHeaders(ais), 'content-type': 'application/json; charset=utf-8' },
    payload: JSON.stringify({ access: 'ALL_ACCOUNTS' }),
  });
  assert.equal(answer.status, 201, JSON.stringify(answer.body));
  const funds = await call(gateway.app, 'POST', '/psd2/v1/funds-confirmations', {
    headers: { ...gateway.client.tppHeaders(pis), 'content-type': 'application/json;charset=UTF-8' },
    payload: JSON.stringify({
      account: { iban: ACCOUNTS.agda.iban },
      instructedAmount: { currency: 'SEK', amount: '1.00' },
    }),
  });
  assert.deepEqual(statusAndBody(funds), { status: 200, body: { fundsAvailable: true } });
});

test('the token endpoint still takes forms (with a charset too); a form body of a JSON endpoint is never read', async () => {
  for (const contentType of [
    'application/x-www-form-urlencoded',
    'application/x-www-form-urlencoded;charset=UTF-8',
  ]) {
    const answer = await call(gateway.app, 'POST', '/oauth2/token/1.0', {
      headers: { 'content-type': contentType },
      payload: new URLSearchParams({
        grant_type: 'client_credentials',
        scope: 'PIS',
        client_id: gateway.sandboxApp.clientId,
      }).toString(),
    });
    const body = answer.body as { access_token: string };
    assert.deepEqual(statusAndBody(answer), {
      status: 200,
      body: { access_token: body.access_token, expires_in: 86400, token_type: 'Bearer' },
    });
  }
  const twice = await call(gateway.app, 'POST', '/oauth2/token/1.0', {
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: 'grant_type=client_credentials&x%3Cy=1&x%3Cy=2',
  });
  assert.deepEqual(statusAndBody(twice), {
    status: 400,
    body: { error: 'invalid_request', error_description: 'a parameter must be given once' },
  });
});

test('the PSU pages take forms: another media type is 415 naming forms, a post without a form 400', async () => {
  for (const path of ['/psu/login', '/psu/consent', '/psu/eid/open', '/psu/eid/sign']) {
    const text = await call(gateway.app, 'POST', path, {
      headers: { 'content-type': 'text/plain' },
      payload: 'psu_id=1',
    });
    assert.deepEqual(statusAndBody(text), {
      status: 415,
      body: errorBody(415, 'Unsupported Media Type', {
        code: 'UNSUPPORTED_MEDIA_TYPE',
        text: 'Content-Type must be application/x-www-form-urlencoded',
      }),
    });
    const none = await call(gateway.app, 'POST', path);
    assert.deepEqual(statusAndBody(none), {
      status: 400,
      body: errorBody(400, 'Bad Request', { code: 'FORMAT_ERROR', text: 'the body must be object' }),
    });
  }
});
