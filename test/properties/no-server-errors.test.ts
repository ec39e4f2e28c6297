// Properties: whatever body and headers a client sends to initiation, the token endpoint and the
// account-information calls, the answer is never a 5xx, and every error is in its documented shape.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import fc from 'fast-check';
import { type Gateway, startGateway } from '../helpers/gateway.ts';
import { call } from '../helpers/http.ts';
import { ACCOUNTS, domestic, sepa } from '../helpers/payments.ts';

let gateway: Gateway;
let token: string;
before(async () => {
  gateway = await startGateway();
  token = await gateway.client.clientCredentialsToken();
});
after(() => gateway.close());

const PATHS = [
  '/psd2/v1/payments/sepa-credit-transfer',
  '/psd2/v1/payments/handelsbanken-domestic-credit-transfer',
  '/psd2/se/v2/payments/private/single/other-bank-domestic-credit-transfer',
  '/psd2/se/v2/payments/corporate/single/sepa-credit-transfer',
  '/psd2/v1/payments/%00',
];

/**
 * One character of a generated string: mostly printable ASCII, also any code point, and the ones a
 * database cannot store (U+0000, unpaired surrogates).
 */
const UNIT = fc.oneof(
  { weight: 6, arbitrary: fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 1 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }) },
  { weight: 1, arbitrary: fc.constantFrom('\u0000', '\ud800', '\udc00', '\ud83d\ude00') },
);
const anyJson = () => fc.jsonValue({ stringUnit: UNIT });
const anyString = (maxLength: number) => fc.string({ unit: UNIT, maxLength });

/** Valid bodies with parts replaced by arbitrary JSON: close enough to reach the deeper rules. */
const mutatedBody = fc
  .tuple(
    fc.constantFrom(domestic(), sepa(ACCOUNTS.nl.iban!)),
    fc.array(
      fc.tuple(
        fc.constantFrom(
          'debtorAccount',
          'creditorAccount',
          'instructedAmount',
          'creditor',
          'requestedExecutionDate',
          'remittanceInformationUnstructured',
          'chargeBearer',
          'debtorAccount.value',
          'instructedAmount.amount',
          'creditorAccount.accountType',
        ),
        anyJson(),
      ),
      { maxLength: 3 },
    ),
  )
  .map(([body, changes]) => {
    const copy = structuredClone(body) as Record<string, unknown>;
    for (const [path, value] of changes) {
      const [head, tail] = path.split('.') as [string, string | undefined];
      if (tail === undefined) copy[head] = value;
      else if (typeof copy[head] === 'object' && copy[head] !== null)
        (copy[head] as Record<string, unknown>)[tail] = value;
    }
    return copy;
  });

const headerValue = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.constantFrom('SE', 'NL', 'GB', 'BANK', '5566778899', ''),
);

function isDocumentedError(body: unknown): boolean {
  const value = body as {
    httpCode?: unknown;
    httpMessage?: unknown;
    moreInformation?: unknown;
    tppMessages?: unknown;
  };
  return (
    typeof value.httpCode === 'string' &&
    typeof value.httpMessage === 'string' &&
    typeof value.moreInformation === 'string' &&
    Array.isArray(value.tppMessages) &&
    value.tppMessages.length > 0
  );
}

test('initiation: random bodies and headers never give a 5xx', async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.constantFrom(...PATHS),
      fc.oneof(mutatedBody, anyJson()),
      fc.record(
        {
          country: headerValue,
          'psu-corporate-id': headerValue,
          'psu-corporate-id-type': headerValue,
          'tpp-request-id': headerValue,
        },
        { requiredKeys: [] },
      ),
      async (path, body, extra) => {
        const headers: Record<string, string> = {
          'x-gateway-client-id': gateway.sandboxApp.clientId,
          'tpp-request-id': `r-${Math.random()}`,
          'tpp-transaction-id': 't',
          authorization: `Bearer ${token}`,
        };
        for (const [name, value] of Object.entries(extra))
          if (/^[\x20-\x7e]*$/.test(value)) headers[name] = value;
        const answer = await call(gateway.app, 'POST', path, { headers, json: body });
        assert.ok(answer.status < 500, `${answer.status} ${JSON.stringify(answer.body)}`);
        if (answer.status >= 400) assert.ok(isDocumentedError(answer.body), JSON.stringify(answer.body));
      },
    ),
    { numRuns: 300 },
  );
});

test('initiation: any text in a valid payment never gives a 5xx', async () => {
  // Valid but for the text, so that it reaches the database: every character, also U+0000 and
  // unpaired surrogates, which PostgreSQL cannot store.
  await fc.assert(
    fc.asyncProperty(anyString(14), async (message) => {
      const answer = await call(
        gateway.app,
        'POST',
        '/psd2/se/v2/payments/private/single/handelsbanken-domestic-credit-transfer',
        {
          headers: { ...gateway.client.tppHeaders(token), 'tpp-request-id': `r-${Math.random()}` },
          json: domestic({ remittanceInformationUnstructured: message }),
        },
      );
      assert.ok(answer.status < 500, `${answer.status} ${JSON.stringify(answer.body)}`);
      if (answer.status >= 400) assert.ok(isDocumentedError(answer.body), JSON.stringify(answer.body));
    }),
    { numRuns: 200 },
  );
});

test('token endpoint: random forms never give a 5xx, errors are RFC 6749', async () => {
  const parameter = fc.constantFrom(
    'grant_type',
    'scope',
    'client_id',
    'code',
    'redirect_uri',
    'code_verifier',
    'refresh_token',
  );
  await fc.assert(
    fc.asyncProperty(
      fc.array(
        fc.tuple(
          parameter,
          fc.oneof(
            anyString(60),
            fc.constantFrom('client_credentials', 'authorization_code', 'PIS', gateway.sandboxApp.clientId),
          ),
        ),
        { maxLength: 6 },
      ),
      fc.constantFrom('application/x-www-form-urlencoded', 'application/json', 'multipart/form-data'),
      async (pairs, contentType) => {
        const payload = new URLSearchParams(pairs).toString();
        const answer = await call(gateway.app, 'POST', '/oauth2/token/1.0', {
          headers: { 'content-type': contentType },
          payload,
        });
        assert.ok(answer.status < 500, `${answer.status} ${JSON.stringify(answer.body)}`);
        if (answer.status !== 200) {
          const body = answer.body as { error?: unknown; error_description?: unknown };
          assert.deepEqual(Object.keys(body).sort(), ['error', 'error_description']);
          assert.equal(typeof body.error, 'string');
        }
      },
    ),
    { numRuns: 300 },
  );
});

test('account information: random consent bodies, PSU-IDs and read queries never give a 5xx', async () => {
  const ais = await gateway.client.clientCredentialsToken('AIS');
  const created = await gateway.client.createConsent(ais);
  const psuToken = (await gateway.client.authorizeScope(`AIS:${created.body.consentId}`)).access_token;
  const queryValue = fc.oneof(
    anyString(12),
    fc.constantFrom('2026-01-01', '2026-02-30', 'true', 'false', '', '9999-12-31'),
  );
  await fc.assert(
    fc.asyncProperty(
      fc.oneof(
        fc.record(
          {
            access: fc.oneof(fc.constant('ALL_ACCOUNTS'), anyJson()),
            validUntil: fc.oneof(queryValue, anyJson()),
            frequencyPerDay: fc.oneof(fc.integer({ min: -2, max: 6 }), anyJson()),
          },
          { requiredKeys: [] },
        ),
        anyJson(),
      ),
      headerValue,
      fc.constantFrom(
        '/psd2/v1/accounts',
        `/psd2/v1/accounts/${ACCOUNTS.tolvan.accountId}`,
        `/psd2/v1/accounts/${ACCOUNTS.tolvan.accountId}/transactions`,
        '/psd2/v1/card-accounts/b7c8d9e0-0000-4000-8000-000000000001/transactions',
        '/psd2/gb/v1/accounts/%00',
        `/psd2/v1/consents/${created.body.consentId}`,
      ),
      fc.dictionary(fc.constantFrom('dateFrom', 'dateTo', 'withBalance', 'x'), queryValue, { maxKeys: 3 }),
      async (body, psuId, path, query) => {
        const headers = gateway.client.tppHeaders(ais);
        if (/^[\x20-\x7e]*$/.test(psuId) && psuId !== '') headers['PSU-ID'] = psuId;
        const consent = await call(gateway.app, 'POST', '/psd2/v1/consents', { headers, json: body });
        assert.ok(consent.status < 500, `${consent.status} ${JSON.stringify(consent.body)}`);
        if (consent.status >= 400) assert.ok(isDocumentedError(consent.body), JSON.stringify(consent.body));
        const read = await call(gateway.app, 'GET', `${path}?${new URLSearchParams(query)}`, {
          headers: gateway.client.tppHeaders(psuToken),
        });
        assert.ok(read.status < 500, `${read.status} ${JSON.stringify(read.body)}`);
        if (read.status >= 400) assert.ok(isDocumentedError(read.body), JSON.stringify(read.body));
      },
    ),
    { numRuns: 200 },
  );
});

// Issue 37: depth, width, long names, odd encodings and deep query strings, on routes that need no
// token as well as on those that do. Bounded: about 400 generated requests, a few seconds.

const TOO_DEEP = 'the body is nested deeper than 32 levels of arrays and objects';

interface BodyRoute {
  readonly path: string;
  readonly shape: 'api' | 'oauth';
  /** Headers beyond the content type: none for the routes that need no token. */
  readonly headers: () => Record<string, string>;
}

let aisToken: string;
const bodyRoutes = (): BodyRoute[] => [
  { path: '/psu/login', shape: 'api', headers: () => ({}) },
  { path: '/decoupled/eid/initAuthorization/2.0', shape: 'oauth', headers: () => ({}) },
  { path: '/decoupled/mbid/token/1.0?sessionId=x', shape: 'oauth', headers: () => ({}) },
  { path: '/oauth2/token/1.0', shape: 'oauth', headers: () => ({}) },
  {
    path: '/psd2/se/v2/payments/private/single/handelsbanken-domestic-credit-transfer',
    shape: 'api',
    headers: () => ({ ...gateway.client.tppHeaders(token), 'tpp-request-id': `r-${Math.random()}` }),
  },
  {
    path: '/psd2/se/v2/payments/private/signing-basket',
    shape: 'api',
    headers: () => ({ ...gateway.client.tppHeaders(token), 'tpp-request-id': `r-${Math.random()}` }),
  },
  { path: '/psd2/v1/consents', shape: 'api', headers: () => gateway.client.tppHeaders(aisToken) },
];

/** A JSON text of a given nesting, width and name length, built without recursion. */
const shapedBody = fc
  .record({
    depth: fc.oneof(fc.integer({ min: 0, max: 40 }), fc.integer({ min: 41, max: 60_000 })),
    container: fc.constantFrom('array', 'object', 'mixed'),
    width: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 10 }), fc.integer({ min: 1_000, max: 12_000 })),
    nameLength: fc.oneof(fc.integer({ min: 1, max: 12 }), fc.integer({ min: 1_000, max: 100_000 })),
    leaf: anyJson(),
    closed: fc.boolean(),
  })
  .map((shape) => {
    // A long name on every level of a deep body would be gigabytes: long names go with shallow bodies.
    const name = JSON.stringify('k'.repeat(shape.depth > 40 ? 1 : shape.nameLength));
    let inner = JSON.stringify(shape.leaf) ?? 'null';
    if (shape.width > 0) {
      const items = Array.from({ length: shape.width }, (_, index) =>
        shape.container === 'array' ? inner : `"k${index}":${inner}`,
      );
      inner = shape.container === 'array' ? `[${items.join(',')}]` : `{${items.join(',')}}`;
    }
    const opens: string[] = [];
    const closes: string[] = [];
    for (let level = 0; level < shape.depth; level++) {
      const array = shape.container === 'array' || (shape.container === 'mixed' && level % 2 === 0);
      opens.push(array ? '[' : `{${name}:`);
      closes.push(array ? ']' : '}');
    }
    const text = opens.join('') + inner + (shape.closed ? closes.reverse().join('') : '');
    return { text, depth: shape.depth };
  });

function assertDocumented(route: BodyRoute, answer: { status: number; body: unknown }): void {
  assert.ok(
    answer.status < 500,
    `${route.path}: ${answer.status} ${JSON.stringify(answer.body).slice(0, 300)}`,
  );
  if (answer.status < 400 || typeof answer.body !== 'object') return;
  if (route.shape === 'oauth') {
    const body = answer.body as Record<string, unknown>;
    assert.deepEqual(Object.keys(body).sort(), ['error', 'error_description'], JSON.stringify(body));
  } else assert.ok(isDocumentedError(answer.body), JSON.stringify(answer.body).slice(0, 300));
}

let addresses = 0;
/** A documentation address (198.18.0.0/15, RFC 2544) not used before in this run. */
function nextAddress(): string {
  addresses++;
  return `198.18.${addresses >> 8}.${addresses & 255}`;
}

test('JSON bodies of any depth, width and name length never give a 5xx; too deep is one FORMAT_ERROR', async () => {
  aisToken = await gateway.client.clientCredentialsToken('AIS');
  const routes = bodyRoutes();
  await fc.assert(
    fc.asyncProperty(fc.constantFrom(...routes), shapedBody, async (route, body) => {
      // Each run from an address of its own: the password pages' rate limit (per address) answers
      // before the body is read, and would hide what this property is about.
      const answer = await call(gateway.app, 'POST', route.path, {
        headers: { ...route.headers(), 'content-type': 'application/json' },
        payload: body.text,
        remoteAddress: nextAddress(),
      });
      assertDocumented(route, answer);
      // Over 40 levels of wrapping alone, whatever the leaf: refused, before anything else is said.
      if (body.depth > 40 && Buffer.byteLength(body.text) <= gateway.config.bodyLimit) {
        assert.deepEqual(
          { status: answer.status, body: answer.body },
          route.shape === 'oauth'
            ? { status: 400, body: { error: 'invalid_request', error_description: TOO_DEEP } }
            : {
                status: 400,
                body: {
                  httpCode: '400',
                  httpMessage: 'Bad Request',
                  moreInformation: TOO_DEEP,
                  tppMessages: [{ category: 'ERROR', code: 'FORMAT_ERROR', text: TOO_DEEP }],
                },
              },
          route.path,
        );
      }
    }),
    { numRuns: 150 },
  );
});

/** Byte sequences no UTF-8 decoder accepts: overlong forms, a lone surrogate, stray bytes, beyond U+10FFFF. */
const INVALID_UTF8 = [
  [0xc0, 0xaf],
  [0xe0, 0x80, 0xaf],
  [0xf0, 0x80, 0x80, 0xaf],
  [0xed, 0xa0, 0x80],
  [0xff],
  [0x80],
  [0xf4, 0x90, 0x80, 0x80],
  [0xc3],
];

const encodedBody = fc
  .record({
    json: fc.oneof(
      fc.constant(JSON.stringify(domestic())),
      fc.constant(JSON.stringify({ access: 'ALL_ACCOUNTS' })),
      anyJson().map((value) => JSON.stringify(value) ?? 'null'),
    ),
    encoding: fc.constantFrom('utf8', 'utf16le', 'utf16be', 'latin1'),
    bom: fc.constantFrom('none', 'utf8', 'utf16le', 'utf16be'),
    invalid: fc.option(fc.tuple(fc.constantFrom(...INVALID_UTF8), fc.nat()), { freq: 2 }),
    contentType: fc.constantFrom(
      'application/json',
      'application/json; charset=utf-8',
      'application/json; charset=UTF-16',
      'application/json; charset=iso-8859-1',
      'application/json; charset="utf-8"; charset=latin1',
      'application/json; charset=',
      'application/json;charset=x-unknown',
    ),
  })
  .map(({ json, encoding, bom, invalid, contentType }) => {
    const text =
      encoding === 'utf16be'
        ? Buffer.from(json, 'utf16le').swap16()
        : Buffer.from(json, encoding === 'utf8' ? 'utf8' : encoding);
    const marks = { none: [], utf8: [0xef, 0xbb, 0xbf], utf16le: [0xff, 0xfe], utf16be: [0xfe, 0xff] };
    let bytes = Buffer.concat([Buffer.from(marks[bom]), text]);
    if (invalid !== null) {
      const [sequence, at] = invalid;
      const where = at % (bytes.length + 1);
      bytes = Buffer.concat([bytes.subarray(0, where), Buffer.from(sequence), bytes.subarray(where)]);
    }
    return { bytes, contentType };
  });

test('odd encodings (invalid UTF-8, overlong forms, UTF-16, BOMs, charset parameters) never give a 5xx', async () => {
  aisToken ??= await gateway.client.clientCredentialsToken('AIS');
  const routes = bodyRoutes();
  await fc.assert(
    fc.asyncProperty(fc.constantFrom(...routes), encodedBody, async (route, { bytes, contentType }) => {
      const response = await gateway.app.inject({
        method: 'POST',
        url: route.path,
        headers: { ...route.headers(), 'content-type': contentType },
        payload: bytes,
      });
      const body = String(response.headers['content-type'] ?? '').includes('json')
        ? (JSON.parse(response.body) as unknown)
        : response.body;
      assertDocumented(route, { status: response.statusCode, body });
      assert.ok(!response.body.includes('\ufffd'), `${route.path}: ${response.body.slice(0, 300)}`);
    }),
    { numRuns: 120 },
  );
});

/** Form parameters with every kind of percent-encoding: malformed, overlong, a lone surrogate, U+0000. */
const formPart = fc.oneof(
  fc.constantFrom(
    'grant_type',
    'client_credentials',
    'scope',
    'PIS',
    '%',
    '%zz',
    '%4',
    '%C0%AF',
    '%E0%80%AF',
    '%ED%A0%80',
    '%00',
    '%FF%FE',
    '+',
    '%2B',
    '%25%32%30',
    'a%5B0%5D%5Bb%5D',
    'x'.repeat(5_000),
  ),
  fc.string({ unit: 'grapheme-ascii', maxLength: 12 }),
);

test('form bodies with any percent-encoding never give a 5xx', async () => {
  const paths = ['/oauth2/token/1.0', '/psu/login', '/psu/consent'];
  await fc.assert(
    fc.asyncProperty(
      fc.constantFrom(...paths),
      fc.array(
        fc.tuple(fc.array(formPart, { minLength: 1, maxLength: 3 }), fc.array(formPart, { maxLength: 3 })),
        {
          maxLength: 8,
        },
      ),
      fc.constantFrom(
        'application/x-www-form-urlencoded',
        'application/x-www-form-urlencoded; charset=UTF-8',
        'application/x-www-form-urlencoded;charset=latin1',
        'application/x-www-form-urlencoded; charset=utf-16',
      ),
      async (path, pairs, contentType) => {
        const payload = pairs.map(([name, value]) => `${name.join('')}=${value.join('')}`).join('&');
        const answer = await call(gateway.app, 'POST', path, {
          headers: { 'content-type': contentType },
          payload,
        });
        assertDocumented(
          { path, shape: path.startsWith('/oauth2') ? 'oauth' : 'api', headers: () => ({}) },
          answer,
        );
      },
    ),
    { numRuns: 120 },
  );
});

/** A query string: nested brackets, dotted names, a name repeated or very long, many names. */
const deepQuery = fc
  .record({
    form: fc.constantFrom('brackets', 'dots', 'repeated', 'many', 'long'),
    size: fc.oneof(fc.integer({ min: 1, max: 50 }), fc.integer({ min: 500, max: 3_000 })),
    name: fc.constantFrom('dateFrom', 'withBalance', 'sessionId', 'scope', 'client_id', 'a', '%00', '%ZZ'),
    value: fc.constantFrom('1', '2026-01-01', 'true', '', '%00', '%ED%A0%80', 'x'.repeat(300)),
  })
  .map(({ form, size, name, value }) => {
    if (form === 'brackets') return `${name}${'[a]'.repeat(size)}=${value}`;
    if (form === 'dots') return `${name}${'.a'.repeat(size)}=${value}`;
    if (form === 'repeated') return Array.from({ length: size }, () => `${name}=${value}`).join('&');
    if (form === 'many')
      return Array.from({ length: size }, (_, index) => `${name}${index}=${value}`).join('&');
    return `${name}${'n'.repeat(size * 10)}=${value}`;
  });

test('deep, wide and long query strings never give a 5xx', async () => {
  aisToken ??= await gateway.client.clientCredentialsToken('AIS');
  const consentId = (await gateway.client.createConsent(aisToken)).body.consentId;
  const gets = [
    `/psd2/v1/accounts/${ACCOUNTS.tolvan.accountId}/transactions`,
    `/psd2/v1/consents/${consentId}`,
    '/oauth2/authorize/1.0',
    '/psd2/v1/payments/sepa-credit-transfer/x/status',
    '/sandbox/test-data',
  ];
  await fc.assert(
    fc.asyncProperty(fc.constantFrom(...gets), deepQuery, async (path, query) => {
      const answer = await call(gateway.app, 'GET', `${path}?${query}`, {
        headers: { ...gateway.client.tppHeaders(aisToken), country: 'SE' },
      });
      assert.ok(
        answer.status < 500,
        `${path}: ${answer.status} ${JSON.stringify(answer.body).slice(0, 300)}`,
      );
      if (answer.status >= 400 && typeof answer.body === 'object')
        assert.ok(isDocumentedError(answer.body), JSON.stringify(answer.body).slice(0, 300));
    }),
    { numRuns: 100 },
  );
});
