// The error shapes at the edges: unknown endpoints, oversized bodies, a failing bank system (5xx
// without internals), the health check, and correlation ids.
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { after, before, test } from 'node:test';
import { renderPage } from '../../src/api/psu/pages.ts';
import { type Gateway, sibling, startGateway } from '../helpers/gateway.ts';
import { BAD_REQUEST, call, errorBody, NOT_FOUND, statusAndBody } from '../helpers/http.ts';
import { domestic } from '../helpers/payments.ts';

/** Booking fails with internals in its message. */
const fail = async (): Promise<never> => {
  throw new Error('relation "ledger_entries" does not exist at /srv/bank/core.ts:42');
};

let gateway: Gateway;
before(async () => {
  // The built-in ledger, but booking fails in three steps and in one call.
  gateway = await startGateway({
    coreBanking: (ledger) => ({ ...ledger, book: fail }),
    recordedBookings: () => ({ bookRecorded: fail }),
    config: { bodyLimit: 4096 },
  });
});
after(() => gateway.close());

test('an unknown endpoint', async () => {
  const answer = await call(gateway.app, 'GET', '/psd2/v1/nothing-here?x=1');
  assert.deepEqual(
    statusAndBody(answer),
    NOT_FOUND({ code: 'RESOURCE_UNKNOWN', text: 'There is no endpoint for GET at this path' }),
  );
});

test('a body over the limit', async () => {
  const answer = await call(gateway.app, 'POST', '/psd2/v1/payments/sepa-credit-transfer', {
    headers: {
      'x-gateway-client-id': gateway.sandboxApp.clientId,
      'tpp-request-id': 'r',
      'tpp-transaction-id': 't',
      authorization: `Bearer ${await gateway.client.clientCredentialsToken()}`,
      country: 'SE',
    },
    json: { filler: 'x'.repeat(5000) },
  });
  assert.deepEqual(statusAndBody(answer), {
    status: 413,
    body: errorBody(413, 'Payload Too Large', {
      code: 'REQUEST_TOO_LARGE',
      text: 'the request body is too large',
    }),
  });
});

test('U+0000 or an unpaired surrogate anywhere is refused before it reaches the database', async () => {
  const token = await gateway.client.clientCredentialsToken();
  const headers = { ...gateway.client.tppHeaders(token), 'tpp-request-id': 'r-nul' };
  const refused = (path: string) =>
    BAD_REQUEST({
      code: 'FORMAT_ERROR',
      path,
      text: `${path} contains a character that is not accepted (U+0000 or an unpaired surrogate)`,
    });
  const initiation = '/psd2/se/v2/payments/private/single/handelsbanken-domestic-credit-transfer';
  for (const [body, path] of [
    [domestic({ remittanceInformationUnstructured: 'Hyra\u0000' }), 'remittanceInformationUnstructured'],
    [domestic({ creditor: { name: 'Agda \ud800' } }), 'creditor.name'],
    [domestic({ creditor: { name: 'Agda \udc00 Andersson' } }), 'creditor.name'],
  ] as const) {
    const answer = await call(gateway.app, 'POST', initiation, { headers, json: body });
    assert.deepEqual(statusAndBody(answer), refused(path));
    assert.equal(answer.headers['tpp-request-id'], 'r-nul');
  }
  // A member name that holds the character is never repeated, nor is a name that reads as no field
  // name on the way to it (issue 37): the answer says where, in the caller's words only when they
  // read as field names.
  for (const [body, expected] of [
    [
      domestic({ 'note\u0000': 'x' }),
      {
        code: 'FORMAT_ERROR',
        text: 'the name of a field of the body contains a character that is not accepted (U+0000 or an unpaired surrogate)',
      },
    ],
    [
      domestic({ creditor: { name: 'Agda', 'x\ud800': 1 } }),
      {
        code: 'FORMAT_ERROR',
        path: 'creditor',
        text: 'creditor has a member whose name contains a character that is not accepted (U+0000 or an unpaired surrogate)',
      },
    ],
    [
      domestic({ "x';DELETE FROM payments;--": { note: 'Hyra\u0000' } }),
      {
        code: 'FORMAT_ERROR',
        text: 'a field of the body contains a character that is not accepted (U+0000 or an unpaired surrogate)',
      },
    ],
  ] as const) {
    const answer = await call(gateway.app, 'POST', initiation, { headers, json: body });
    assert.deepEqual(statusAndBody(answer), BAD_REQUEST(expected));
  }
  // A surrogate pair is a character like any other.
  const paired = await call(gateway.app, 'POST', initiation, {
    headers: { ...headers, 'tpp-request-id': 'r-pair' },
    json: domestic({ remittanceInformationUnstructured: 'Tack \ud83d\ude00' }),
  });
  assert.equal(paired.status, 200, JSON.stringify(paired.body));
  const status = await call(
    gateway.app,
    'GET',
    '/psd2/v1/payments/handelsbanken-domestic-credit-transfer/%00/status',
    { headers: { ...headers, country: 'SE' } },
  );
  assert.deepEqual(statusAndBody(status), refused('paymentId'));
  // Authorize: such a client_id is no registered app (never a redirect); with a valid client and
  // redirect URI, such text elsewhere goes back in the redirect (API-NOTES).
  const authorize = await call(gateway.app, 'GET', '/oauth2/authorize/1.0?client_id=a%00&redirect_uri=x');
  assert.deepEqual(
    statusAndBody(authorize),
    BAD_REQUEST({ code: 'CLIENT_UNKNOWN', path: 'client_id', text: 'client_id is not a registered app' }),
  );
  const app = gateway.sandboxApp;
  for (const [query, name, state] of [
    ['scope=PIS:x%00&state=s1', 'scope', 's1'],
    ['scope=PIS:x&state=s%00', 'state', 's\u0000'],
  ] as const) {
    const redirected = await call(
      gateway.app,
      'GET',
      `/oauth2/authorize/1.0?response_type=code&client_id=${app.clientId}&redirect_uri=${encodeURIComponent(app.redirectUri)}&${query}`,
    );
    assert.equal(redirected.status, 302);
    const location = new URL(String(redirected.headers.location));
    assert.equal(`${location.origin}${location.pathname}`, app.redirectUri);
    assert.deepEqual(Object.fromEntries(location.searchParams), {
      error: 'invalid_request',
      error_description: `${name} contains a character that is not accepted (U+0000 or an unpaired surrogate)`,
      state,
    });
  }
  // The token endpoint answers in RFC 6749's shape.
  const tokenAnswer = await call(gateway.app, 'POST', '/oauth2/token/1.0', {
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: 'grant_type=client_credentials&scope=PIS&client_id=%00',
  });
  assert.deepEqual(statusAndBody(tokenAnswer), {
    status: 400,
    body: {
      error: 'invalid_request',
      error_description:
        'client_id contains a character that is not accepted (U+0000 or an unpaired surrogate)',
    },
  });
});

test('a form parameter given twice: 400 in the shape of the route, on the PSU pages a page (not a 500)', async () => {
  const FORM = { 'content-type': 'application/x-www-form-urlencoded' };
  const page = renderPage(
    {
      view: 'message',
      title: 'This form cannot be read',
      text: 'It was sent with a field given twice. Go back to the app you came from and start again.',
    },
    undefined,
    '',
  );
  for (const path of ['/psu/login', '/psu/consent']) {
    // An OAuth body failed the pages' serialiser; the API's body is no page for a browser (issue 37).
    for (const payload of ['csrf=a&csrf=b', 'a%20b=1&a%20b=2']) {
      const answer = await call(gateway.app, 'POST', path, { headers: FORM, payload });
      assert.deepEqual(
        [answer.status, answer.headers['content-type'], answer.body],
        [400, 'text/html; charset=utf-8', page],
        `${path} ${payload}`,
      );
    }
  }
  const token = await call(gateway.app, 'POST', '/oauth2/token/1.0', {
    headers: FORM,
    payload: 'scope=PIS&scope=AIS',
  });
  assert.deepEqual(statusAndBody(token), {
    status: 400,
    body: { error: 'invalid_request', error_description: 'scope must be given once' },
  });
});

test('a path the router cannot read: bad percent-encoding, an overlong segment', async () => {
  const token = await gateway.client.clientCredentialsToken();
  const headers = { ...gateway.client.tppHeaders(token), country: 'SE', 'tpp-request-id': 'r-url' };
  const product = '/psd2/v1/payments/handelsbanken-domestic-credit-transfer';
  for (const [id, text] of [
    ['a%C3%28', 'the path is not a valid URL: it has a malformed percent-encoding'],
    ['x'.repeat(201), 'a segment of the path is longer than 200 characters'],
  ] as const) {
    const answer = await call(gateway.app, 'GET', `${product}/${id}/status`, { headers });
    assert.deepEqual(statusAndBody(answer), BAD_REQUEST({ code: 'FORMAT_ERROR', text }));
    assert.match(String(answer.headers['x-correlation-id']), /^[0-9a-f-]{36}$/);
    assert.equal(answer.headers['tpp-request-id'], 'r-url');
  }
});

/** Sends raw bytes to the gateway and answers everything it writes back before closing. */
function rawExchange(request: string): Promise<string> {
  const { hostname, port } = new URL(gateway.url);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = connect(Number(port), hostname, () => socket.write(request));
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('close', () => resolve(Buffer.concat(chunks).toString()));
    socket.on('error', reject);
  });
}

test('what the HTTP parser refuses is answered in the API shape too', async () => {
  for (const [request, status, code, text] of [
    [
      'GET /healthz HTTP/1.1\r\nHost: x\r\nTPP-Request-ID: a\u0000b\r\n\r\n',
      '400 Bad Request',
      'FORMAT_ERROR',
      'the request is not valid HTTP',
    ],
    [
      `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Filler: ${'f'.repeat(20_000)}\r\n\r\n`,
      '431 Request Header Fields Too Large',
      'REQUEST_TOO_LARGE',
      'the request headers are too large',
    ],
  ] as const) {
    const answer = await rawExchange(request);
    const [head, body] = answer.split('\r\n\r\n') as [string, string];
    assert.equal(head.split('\r\n')[0], `HTTP/1.1 ${status}`);
    assert.match(head, /\r\nContent-Type: application\/json; charset=utf-8\r\n/);
    assert.deepEqual(
      JSON.parse(body),
      errorBody(Number(status.slice(0, 3)), status.slice(4), { code, text }),
    );
  }
});

test('a failure inside answers 500 with a correlation id and nothing internal', async () => {
  const client = gateway.client;
  const token = await client.clientCredentialsToken();
  const initiated = await client.initiate(token, {
    path: '/psd2/se/v2/payments/private/single/handelsbanken-domestic-credit-transfer',
    body: domestic(),
  });
  const answer = await client.authorizeAndExecute(
    'handelsbanken-domestic-credit-transfer',
    initiated.body.paymentId,
  );
  const correlationId = answer.headers.get('x-correlation-id')!;
  assert.match(correlationId, /^[0-9a-f-]{36}$/);
  const text = `An internal error occurred; correlation id ${correlationId}`;
  assert.deepEqual(
    [answer.status, answer.body],
    [500, errorBody(500, 'Internal Server Error', { code: 'INTERNAL_ERROR', text })],
  );
  assert.doesNotMatch(JSON.stringify(answer.body), /ledger_entries|does not exist|core\.ts/);
  // Nothing was half-done: the payment is still waiting for execution.
  const status = await client.status(
    'handelsbanken-domestic-credit-transfer',
    initiated.body.paymentId,
    token,
    'SE',
  );
  assert.deepEqual(status.body, { paymentId: initiated.body.paymentId, transactionStatus: 'ACTC' });
});

test('the health check names the database and its state', async () => {
  const answer = await call(gateway.app, 'GET', '/healthz');
  const database = (answer.body as { systems: { database: { checkedAt: string; latencyMs: number } } })
    .systems.database;
  assert.deepEqual(statusAndBody(answer), {
    status: 200,
    body: {
      status: 'ok',
      mode: 'sandbox',
      systems: {
        database: {
          state: 'up',
          checkedAt: database.checkedAt,
          latencyMs: database.latencyMs,
          required: true,
        },
      },
    },
  });
  assert.ok(Math.abs(Date.parse(database.checkedAt) - Date.now()) < 5_000, database.checkedAt);
  assert.ok(database.latencyMs >= 0 && database.latencyMs < 2_000, String(database.latencyMs));
});

test('the sandbox test data', async () => {
  const answer = await call(gateway.app, 'GET', '/sandbox/test-data');
  assert.equal(answer.status, 200);
  const body = answer.body as {
    psus: { psuId: string; type: string; corporateId?: string; accounts: unknown[] }[];
  };
  assert.deepEqual(
    body.psus.find((psu) => psu.psuId === '191212121212'),
    {
      psuId: '191212121212',
      name: 'Tolvan Tolvansson',
      type: 'private',
      accounts: [
        {
          accountId: '3a2f8b10-5c1e-4f8e-9a41-0c1d2e3f4a01',
          iban: 'SE7160000000000123456789',
          bban: '6000123456789',
          clearingNumber: '6000',
          currency: 'SEK',
          country: 'SE',
          name: 'Allkonto',
          ownerName: 'Tolvan Tolvansson',
        },
        {
          accountId: '3a2f8b10-5c1e-4f8e-9a41-0c1d2e3f4a02',
          iban: 'SE9360000000000987654322',
          bban: '6000987654322',
          clearingNumber: '6000',
          currency: 'SEK',
          country: 'SE',
          name: 'Sparkonto',
          ownerName: 'Tolvan Tolvansson',
        },
      ],
    },
  );
  assert.deepEqual(
    body.psus.filter((psu) => psu.type === 'corporate').map((psu) => psu.corporateId),
    ['5590001235', '5566778899'],
  );
  assert.deepEqual(
    new Set(
      body.psus.flatMap((psu) => psu.accounts.map((account) => (account as { country: string }).country)),
    ),
    new Set(['SE', 'NL', 'LU', 'GB']),
  );
});

test('the default callback page shows the code and state', async () => {
  const answer = await call(gateway.app, 'GET', '/sandbox/callback?code=abc&state=xyz');
  assert.deepEqual(statusAndBody(answer), { status: 200, body: { code: 'abc', state: 'xyz' } });
});

test('BASE_PATH prefixes every route', async () => {
  const prefixed = await sibling(gateway, { config: { basePath: '/openbanking' } });
  try {
    assert.equal((await call(prefixed.app, 'GET', '/openbanking/healthz')).status, 200);
    assert.equal((await call(prefixed.app, 'GET', '/healthz')).status, 404);
    const token = await prefixed.client.clientCredentialsToken();
    const initiated = await prefixed.client.initiate(token, {
      path: '/psd2/se/v2/payments/private/single/handelsbanken-domestic-credit-transfer',
      body: domestic(),
    });
    assert.equal(
      initiated.body.scaMethods[0]!._links.authorization[0]!.href,
      `${prefixed.url}/oauth2/authorize/1.0`,
    );
    assert.ok(prefixed.url.endsWith('/openbanking'), prefixed.url);
  } finally {
    await prefixed.close();
  }
});
