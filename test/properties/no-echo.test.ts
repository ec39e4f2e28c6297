// Error texts name the field that is wrong, never the caller's raw input (issue 17, item 7): a marker
// string sent in every header, path parameter, query parameter, form parameter and body field of many
// endpoints appears in no answer body (nor in the error_description of an authorize redirect).
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { type Gateway, startGateway } from '../helpers/gateway.ts';
import { type Answer, call, NOT_FOUND, UNAUTHORIZED } from '../helpers/http.ts';
import { ACCOUNTS, domestic } from '../helpers/payments.ts';

const MARKER = 'ECHO<script>x';
const ENCODED = encodeURIComponent(MARKER);
/** The issue 37 report: SQL in a path, repeated in a 401's text. */
const SQL = "x';DELETE FROM payments;--";
const SQL_MARKER = "ECHO';DELETE FROM payments;--";

let gateway: Gateway;
let pis: string;
let ais: string;
let paymentId: string;
let consentId: string;
/** PSU tokens of the payment and of the consent: they pass the token check of a path that names another id. */
let pisPsu: string;
let aisPsu: string;
before(async () => {
  gateway = await startGateway();
  pis = await gateway.client.clientCredentialsToken();
  ais = await gateway.client.clientCredentialsToken('AIS');
  const initiated = await gateway.client.initiate(pis, {
    path: '/psd2/se/v2/payments/private/single/handelsbanken-domestic-credit-transfer',
    body: domestic(),
  });
  paymentId = initiated.body.paymentId;
  consentId = (await gateway.client.createConsent(ais)).body.consentId;
  pisPsu = (await gateway.client.authorizeScope(`PIS:${paymentId}`)).access_token;
  aisPsu = (await gateway.client.authorizeScope(`AIS:${consentId}`)).access_token;
});
after(() => gateway.close());

/**
 * An error answer's body, and the error_description of a redirect, carry no marker (a success may
 * return what was sent: a basket's tppPaymentReference, an app's name).
 */
function assertNoEcho(answer: Answer, what: string): void {
  if (answer.status < 300) return;
  const text = typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body);
  assert.ok(!text.includes('ECHO'), `${what}: ${answer.status} ${text}`);
  const location = answer.headers.location;
  if (typeof location === 'string' && location.includes('error_description')) {
    const description = new URL(location, 'https://gateway.test').searchParams.get('error_description');
    assert.ok(!String(description).includes('ECHO'), `${what}: Location ${location}`);
  }
}

/** The body with each leaf (string, number, boolean) replaced by the marker in turn. */
function leafVariants(value: unknown): unknown[] {
  if (Array.isArray(value)) {
    return value.flatMap((item, index) =>
      leafVariants(item).map((variant) => value.map((other, at) => (at === index ? variant : other))),
    );
  }
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value);
    return entries.flatMap(([name, member]) =>
      leafVariants(member).map((variant) => ({ ...value, [name]: variant })),
    );
  }
  return [MARKER];
}

/** The body with the marker as the name of an extra member, at the top and in each object. */
function nameVariants(value: unknown): unknown[] {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return [];
  const entries = Object.entries(value);
  return [
    { ...value, [MARKER]: 'x' },
    ...entries.flatMap(([name, member]) =>
      nameVariants(member).map((variant) => ({ ...value, [name]: variant })),
    ),
  ];
}

const HEADER_NAMES = [
  'X-Gateway-Client-Id',
  'TPP-Request-ID',
  'TPP-Transaction-ID',
  'Country',
  'Authorization',
  'PSU-IP-Address',
  'PSU-Corporate-ID',
  'PSU-Corporate-ID-Type',
  'PSU-ID',
  'Accept',
  'Content-Type',
];

interface JsonCall {
  readonly method: 'GET' | 'POST' | 'PUT';
  readonly path: string;
  readonly token: () => string;
  readonly body?: unknown;
  readonly headers?: Record<string, string>;
}

const JSON_CALLS: JsonCall[] = [
  {
    method: 'POST',
    path: '/psd2/v1/payments/handelsbanken-domestic-credit-transfer',
    token: () => pis,
    body: domestic(),
    headers: { Country: 'SE' },
  },
  {
    method: 'POST',
    path: '/psd2/se/v2/payments/corporate/single/sepa-credit-transfer',
    token: () => pis,
    body: {
      ...domestic(),
      requestedExecutionDate: '2099-01-01',
      creditor: { name: 'Shop', postalAddress: { townName: 'Paris', country: 'FR' } },
    },
    headers: { 'PSU-Corporate-ID': '5566778899', 'PSU-Corporate-ID-Type': 'BANK' },
  },
  {
    method: 'POST',
    path: '/psd2/se/v2/payments/private/signing-basket',
    token: () => pis,
    body: {
      payments: [
        {
          paymentProduct: 'handelsbanken-domestic-credit-transfer',
          tppPaymentReference: 'ref-1',
          ...domestic(),
        },
        { paymentProduct: 'sek-credit-transfer', tppPaymentReference: 'ref-2', ...domestic() },
      ],
    },
  },
  { method: 'POST', path: '/psd2/v1/consents', token: () => ais, body: { access: 'ALL_ACCOUNTS' } },
  {
    method: 'POST',
    path: '/psd2/se/v2/payments/private/accounts/shorttermconsents',
    token: () => pis,
    body: { access: 'ALL_ACCOUNTS' },
  },
  {
    method: 'POST',
    path: '/psd2/v1/funds-confirmations',
    token: () => pis,
    body: {
      account: { iban: ACCOUNTS.agda.iban },
      payee: 'Shop',
      instructedAmount: { currency: 'SEK', amount: '1.00' },
    },
  },
  {
    method: 'POST',
    path: '/psd2/v1/funds-confirmations',
    token: () => pis,
    body: { cardNumber: '4111111111111111', instructedAmount: { currency: 'SEK', amount: 1 } },
  },
  {
    method: 'POST',
    path: '/psd2/v1/subscriptions',
    token: () => pis,
    body: {
      app: { name: 'A', description: 'B', oauthRedirectURI: 'https://a.example/cb' },
      product: { name: 'payments' },
    },
  },
  {
    method: 'POST',
    path: '/psd2/v1/subscriptions',
    token: () => pis,
    body: { clientId: 'x', product: { name: 'payments' } },
  },
  { method: 'PUT', path: '/psd2/v1/third-parties', token: () => pis, body: { clientCertificate: 'MIIB' } },
  {
    method: 'GET',
    path: '/psd2/v1/payments/handelsbanken-domestic-credit-transfer/{paymentId}/status',
    token: () => pis,
    headers: { Country: 'SE' },
  },
  {
    method: 'PUT',
    path: '/psd2/v1/payments/handelsbanken-domestic-credit-transfer/{paymentId}',
    token: () => pis,
  },
  {
    method: 'GET',
    path: '/psd2/v1/accounts?withBalance=true',
    token: () => ais,
    headers: { 'Consent-ID': '{consentId}' },
  },
];

function withIds(text: string): string {
  return text.replace('{paymentId}', paymentId).replace('{consentId}', consentId);
}

async function send(
  method: JsonCall['method'],
  path: string,
  headers: Record<string, string>,
  body: unknown,
): Promise<Answer> {
  return call(gateway.app, method, path, {
    headers: { 'content-type': 'application/json', ...headers },
    ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
  });
}

test('JSON endpoints: the marker in each body field, member name and header is never echoed', async () => {
  let checked = 0;
  for (const endpoint of JSON_CALLS) {
    const headers = {
      ...gateway.client.tppHeaders(endpoint.token()),
      ...Object.fromEntries(
        Object.entries(endpoint.headers ?? {}).map(([name, value]) => [name, withIds(value)]),
      ),
    };
    const path = withIds(endpoint.path);
    const what = `${endpoint.method} ${endpoint.path}`;
    const bodies =
      endpoint.body === undefined ? [] : [...leafVariants(endpoint.body), ...nameVariants(endpoint.body)];
    for (const [index, body] of bodies.entries()) {
      assertNoEcho(
        await send(endpoint.method, path, { ...headers, 'tpp-request-id': `b-${checked}` }, body),
        `${what} body ${index}`,
      );
      checked++;
    }
    for (const name of HEADER_NAMES) {
      const value = name === 'Authorization' ? `Bearer ${MARKER}` : MARKER;
      const changed = { ...headers, 'tpp-request-id': `h-${checked}`, [name]: value };
      assertNoEcho(await send(endpoint.method, path, changed, endpoint.body), `${what} header ${name}`);
      checked++;
    }
  }
  assert.ok(checked > 150, `${checked} requests`);
});

test('every route: the marker in each path parameter and in the query is never echoed', async () => {
  // Not the sandbox's reset: it would delete the payment and the consent the tokens are for.
  const routes = [...new Set(gateway.routes)]
    .filter((route) => !route.startsWith('HEAD ') && !route.includes('*') && route !== 'POST /sandbox/reset')
    .map((route) => route.split(' ') as [string, string]);
  assert.ok(routes.length > 30, `${routes.length} routes`);
  let checked = 0;
  // With each kind of token: a PSU token passes the app's checks and reaches the one of its scope.
  for (const token of [pis, ais, pisPsu, aisPsu]) {
    for (const [method, template] of routes) {
      if (!['GET', 'POST', 'PUT'].includes(method)) continue;
      const params = template.match(/:[A-Za-z]+/g) ?? [];
      const markers = [ENCODED, encodeURIComponent(SQL_MARKER)];
      const paths =
        params.length === 0
          ? [template]
          : params.flatMap((param) => markers.map((marker) => template.replace(param, marker)));
      for (const path of paths) {
        const filled = path.replace(/:[A-Za-z]+/g, 'x');
        const url = `${filled}?sessionId=${ENCODED}&dateFrom=${ENCODED}&withBalance=${ENCODED}&${ENCODED}=1`;
        const headers = { ...gateway.client.tppHeaders(token), Country: 'SE', 'Consent-ID': consentId };
        const answer = await send(
          method as JsonCall['method'],
          url,
          headers,
          method === 'GET' ? undefined : {},
        );
        assertNoEcho(answer, `${method} ${path}`);
        checked++;
      }
    }
  }
  assert.ok(checked > 400, `${checked} requests`);
  assertNoEcho(await call(gateway.app, 'GET', `/${ENCODED}/${ENCODED}`), 'an unknown path');
  assertNoEcho(await call(gateway.app, 'POST', `/psd2/se/v1/payments/${ENCODED}`), 'Sweden v1');
});

test("issue 37's report: executing /x';DELETE FROM payments;-- answers without the path", async () => {
  const headers = gateway.client.tppHeaders(pisPsu);
  // Execution checks the token's scope first; a status read first whose payment it is, and answers an
  // unknown id as someone else's (no existence oracle): neither repeats the path.
  const expected = [
    {
      path: `/psd2/v1/payments/sepa-credit-transfer/${encodeURIComponent(SQL)}`,
      answer: UNAUTHORIZED({
        code: 'TOKEN_INVALID',
        text: 'The access token is not valid for the resource of this path',
      }),
    },
    {
      path: `/psd2/v1/payments/handelsbanken-domestic-credit-transfer/${encodeURIComponent(SQL)}/status`,
      answer: NOT_FOUND({
        code: 'RESOURCE_UNKNOWN',
        path: 'paymentId',
        text: 'There is no payment with this paymentId',
      }),
    },
  ];
  for (const { path, answer: wanted } of expected) {
    const answer = await call(gateway.app, path.endsWith('/status') ? 'GET' : 'PUT', path, {
      headers: { ...headers, Country: 'SE' },
    });
    assert.deepEqual({ status: answer.status, body: answer.body }, wanted, path);
  }
  // The consent of the path, read with the PSU token of another consent.
  const read = await call(gateway.app, 'GET', `/psd2/v1/consents/${encodeURIComponent(SQL)}`, {
    headers: gateway.client.tppHeaders(aisPsu),
  });
  assert.deepEqual(
    { status: read.status, body: read.body },
    UNAUTHORIZED({
      code: 'TOKEN_INVALID',
      text: 'The access token is not valid for the resource of this path',
    }),
  );
});

test('subscriptions: a clientId that names no app of the TPP is not repeated', async () => {
  const ids = { 'TPP-Request-ID': 'r-enrol', 'TPP-Transaction-ID': 't-enrol' };
  const enrolled = await call(gateway.app, 'POST', '/psd2/v1/third-parties', { headers: ids });
  assert.equal(enrolled.status, 201, JSON.stringify(enrolled.body));
  const tppId = (enrolled.body as { clientId: string }).clientId;
  const tokenAnswer = await call(gateway.app, 'POST', '/oauth2/token/1.0', {
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({
      grant_type: 'client_credentials',
      scope: 'PSD2-ADMIN',
      client_id: tppId,
    }).toString(),
  });
  const admin = (tokenAnswer.body as { access_token: string }).access_token;
  for (const [index, clientId] of [SQL_MARKER, MARKER, gateway.sandboxApp.clientId].entries()) {
    const answer = await call(gateway.app, 'POST', '/psd2/v1/subscriptions', {
      headers: {
        ...ids,
        'TPP-Request-ID': `r-subscribe-${index}`,
        'X-Gateway-Client-Id': tppId,
        authorization: `Bearer ${admin}`,
      },
      json: { clientId, product: { name: 'consents' } },
    });
    assert.deepEqual(
      { status: answer.status, body: answer.body },
      NOT_FOUND({ code: 'RESOURCE_UNKNOWN', path: 'clientId', text: 'clientId names no app of this TPP' }),
    );
  }
});

test('the token endpoint: the marker in each parameter, as a value and as a name, is never echoed', async () => {
  const forms: Record<string, string>[] = [
    { grant_type: 'client_credentials', scope: 'PIS', client_id: gateway.sandboxApp.clientId },
    {
      grant_type: 'authorization_code',
      scope: `PIS:${paymentId}`,
      client_id: gateway.sandboxApp.clientId,
      code: 'c'.repeat(43),
      redirect_uri: gateway.sandboxApp.redirectUri,
      code_verifier: 'v'.repeat(43),
    },
    { grant_type: 'refresh_token', refresh_token: 'r'.repeat(43), client_id: gateway.sandboxApp.clientId },
  ];
  for (const form of forms) {
    for (const name of Object.keys(form)) {
      const payload = new URLSearchParams({ ...form, [name]: MARKER }).toString();
      const answer = await call(gateway.app, 'POST', '/oauth2/token/1.0', {
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload,
      });
      assertNoEcho(answer, `token ${form.grant_type} ${name}`);
    }
    const twice = `${new URLSearchParams(form)}&${ENCODED}=1&${ENCODED}=2`;
    assertNoEcho(
      await call(gateway.app, 'POST', '/oauth2/token/1.0', {
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: twice,
      }),
      'token: a parameter twice',
    );
  }
});

test('authorize and the decoupled flow: the marker in each parameter is never echoed', async () => {
  const query = {
    response_type: 'code',
    scope: `PIS:${paymentId}`,
    client_id: gateway.sandboxApp.clientId,
    state: 's-1',
    redirect_uri: gateway.sandboxApp.redirectUri,
    code_challenge: 'c'.repeat(43),
    code_challenge_method: 'S256',
  };
  for (const name of Object.keys(query)) {
    if (name === 'state') continue; // state comes back as sent, by design (RFC 6749)
    const answer = await call(
      gateway.app,
      'GET',
      `/oauth2/authorize/1.0?${new URLSearchParams({ ...query, [name]: MARKER })}`,
    );
    assertNoEcho(answer, `authorize ${name}`);
  }
  const inits: [string, Record<string, unknown>][] = [
    [
      '/decoupled/eid/initAuthorization/2.0',
      {
        client_id: gateway.sandboxApp.clientId,
        scope: `PIS:${paymentId}`,
        psu_client_ip: '192.0.2.1',
        bisa_same_device: true,
      },
    ],
    [
      '/decoupled/mbid/initAuthorization/1.0',
      {
        psu_id: '191212121212',
        psu_id_type: '1',
        psu_client_ip: '192.0.2.1',
        scope: `AIS:${consentId}`,
        client_id: gateway.sandboxApp.clientId,
      },
    ],
  ];
  for (const [path, body] of inits) {
    for (const variant of [...leafVariants(body), ...nameVariants(body)]) {
      assertNoEcho(
        await send('POST', path, { accept: 'application/json' }, variant),
        `${path} ${JSON.stringify(variant)}`,
      );
    }
  }
  for (const action of ['token', 'cancel']) {
    const answer = await send('POST', `/decoupled/eid/${action}/2.0?sessionId=${ENCODED}`, {}, {});
    assertNoEcho(answer, `decoupled ${action}`);
  }
});
