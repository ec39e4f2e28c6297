// 10,000 generated malformed requests over every route the gateway registers (seeded, so a failure
// repeats): wrong methods, bad path parameters, bad queries, bad and missing headers and tokens, bad
// content types, broken JSON, wrong types, huge strings and bodies over the limit; then raw bytes no
// HTTP client would send. Not one answer is a 5xx, and every answer is one its route documents (the
// test gateway turns an undocumented answer into a 500: src/http/answer-check.ts). On PostgreSQL when
// TEST_DATABASE_URL is set, else on PGlite.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { connect } from 'node:net';
import { after, before, test } from 'node:test';
import fc from 'fast-check';
import { configWith } from '../../src/config.ts';
import { type Gateway, startGateway } from '../helpers/gateway.ts';
import { call } from '../helpers/http.ts';
import { ACCOUNTS, domestic } from '../helpers/payments.ts';
import { RELIABILITY_DATABASE_URL } from './support.ts';

const RUNS = 10_000;
const TIME_LIMIT_MS = 150_000;

let gateway: Gateway;
let token: string;
let paymentId: string;
before(async () => {
  gateway = await startGateway({
    backend: RELIABILITY_DATABASE_URL === undefined ? 'pglite' : 'postgres',
    // Off: 10,000 requests from one address would meet the limits, which would hide the rules behind.
    config: {
      rateLimits: {
        ...configWith({}).rateLimits,
        apiPerApp: 0,
        authorizationPerApp: 0,
        authorizationPerAddress: 0,
        psuLoginPerAddress: 0,
      },
    },
  });
  token = await gateway.client.clientCredentialsToken();
  paymentId = (
    await gateway.client.initiate(token, {
      path: '/psd2/se/v2/payments/private/single/handelsbanken-domestic-credit-transfer',
      body: domestic(),
    })
  ).body.paymentId;
});
after(() => gateway.close());

const METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH'] as const;
type Method = (typeof METHODS)[number];
const HUGE = 'x'.repeat(300_000);

const text = (maxLength: number) =>
  fc.string({
    unit: fc.oneof(
      fc.constant('\u0000'),
      fc.constant('\ud800'),
      fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }),
    ),
    maxLength,
  });
const ascii = (maxLength: number) => fc.string({ unit: 'grapheme-ascii', maxLength });

/** Percent-encoded; a lone surrogate (which encodeURIComponent refuses) as its malformed UTF-8 bytes. */
const encodePart = (value: string) =>
  value
    .replace(/[\ud800-\udfff]/g, '\u0000')
    .split('\u0000')
    .map(encodeURIComponent)
    .join('%ED%A0%80');

/** A path parameter: a plausible value, junk, or something no route expects. */
const parameter = () =>
  fc.oneof(
    fc.constantFrom(
      'the-payment',
      'sepa-credit-transfer',
      'handelsbanken-domestic-credit-transfer',
      'private',
      'corporate',
      ACCOUNTS.tolvan.accountId,
      '00000000-0000-4000-8000-000000000000',
      '%00',
      '%zz',
      '..%2F..%2Fetc',
      'x'.repeat(3_000),
    ),
    text(40).map(encodePart),
  );

/** Nested arrays or objects, within the body limit or beyond it (issue 37: 130,000 `[` made a 500). */
const deepBody = fc
  .tuple(fc.integer({ min: 20, max: 130_000 }), fc.constantFrom('[', '{"a":', '{"payments":'), fc.boolean())
  .map(([levels, open, closed]) => {
    const close = open === '[' ? ']' : '}';
    return `${open.repeat(levels)}1${closed ? close.repeat(levels) : ''}`;
  });

/** Wide arrays and objects, and long member names, within the body limit. */
const wideBody = fc
  .tuple(fc.integer({ min: 100, max: 40_000 }), fc.constantFrom('items', 'members', 'payments', 'name'))
  .map(([size, form]) => {
    if (form === 'items') return `[${new Array(size).fill('0').join(',')}]`;
    if (form === 'payments') return JSON.stringify({ payments: new Array(size).fill({ a: 1 }) });
    if (form === 'members')
      return JSON.stringify(Object.fromEntries(Array.from({ length: size }, (_, index) => [`k${index}`, 1])));
    return JSON.stringify({ ...domestic(), ['k'.repeat(size * 5)]: 1 });
  });

/** Bytes: invalid UTF-8 (overlong forms, a lone surrogate, stray bytes), UTF-16 and byte order marks. */
const oddBytes = fc
  .tuple(
    fc.constantFrom(JSON.stringify(domestic()), '{"access":"ALL_ACCOUNTS"}', 'grant_type=client_credentials'),
    fc.constantFrom('utf8', 'utf16le', 'latin1'),
    fc.constantFrom([], [0xef, 0xbb, 0xbf], [0xff, 0xfe], [0xfe, 0xff]),
    fc.constantFrom(
      [],
      [0xc0, 0xaf],
      [0xe0, 0x80, 0xaf],
      [0xed, 0xa0, 0x80],
      [0xff],
      [0x80],
      [0xf4, 0x90, 0x80, 0x80],
    ),
    fc.nat(),
  )
  .map(([text, encoding, mark, invalid, at]) => {
    const bytes = Buffer.from(text, encoding as BufferEncoding);
    const where = at % (bytes.length + 1);
    return Buffer.concat([
      Buffer.from(mark),
      bytes.subarray(0, where),
      Buffer.from(invalid),
      bytes.subarray(where),
    ]);
  });

/** A body: broken JSON, valid JSON of the wrong shape, a form, nothing, or more than the limit. */
const body = fc.oneof(
  deepBody,
  wideBody,
  oddBytes,
  fc.constantFrom('{', '{"a":', '[1,2', 'null', '"x"', '{"instructedAmount":{"amount":1e400}}', '', HUGE),
  fc.jsonValue().map((value) => JSON.stringify(value)),
  fc
    .record(
      { debtorAccount: fc.jsonValue(), instructedAmount: fc.jsonValue(), payments: fc.jsonValue() },
      { requiredKeys: [] },
    )
    .map((value) => JSON.stringify({ ...domestic(), ...value })),
  fc.dictionary(ascii(12), text(20)).map((value) => new URLSearchParams(value).toString()),
  text(200),
);

/** Deep, wide and long query strings: nested brackets, dotted names, a name repeated, long names. */
const deepQuery = fc
  .tuple(
    fc.constantFrom('brackets', 'dots', 'repeated', 'many', 'long'),
    fc.integer({ min: 1, max: 2_000 }),
    fc.constantFrom('dateFrom', 'withBalance', 'sessionId', 'scope', 'a', '%00', '%ZZ'),
  )
  .map(([form, size, name]) => {
    if (form === 'brackets') return `${name}${'[a]'.repeat(size)}=1`;
    if (form === 'dots') return `${name}${'.a'.repeat(size)}=1`;
    if (form === 'repeated') return Array.from({ length: size }, () => `${name}=1`).join('&');
    if (form === 'many') return Array.from({ length: size }, (_, index) => `${name}${index}=1`).join('&');
    return `${name}${'n'.repeat(size * 10)}=1`;
  });

const headerValue = fc.oneof(
  ascii(60),
  fc.constantFrom('SE', 'NL', 'XX', '', 'Bearer', 'Bearer x', 'Basic Zm9vOmJhcg==', 'x'.repeat(8_000)),
);

const request = fc.record({
  route: fc.integer({ min: 0, max: 10_000 }),
  methodChange: fc.option(fc.constantFrom(...METHODS), { freq: 6 }),
  parameters: fc.array(parameter(), { minLength: 4, maxLength: 4 }),
  query: fc.oneof(
    {
      weight: 4,
      arbitrary: fc
        .dictionary(
          fc.constantFrom('dateFrom', 'withBalance', 'state', 'client_id', 'scope', 'x', ''),
          text(30),
          { maxKeys: 3 },
        )
        .map((query) => new URLSearchParams(query).toString()),
    },
    { weight: 1, arbitrary: deepQuery },
  ),
  token: fc.constantFrom('valid', 'none', 'junk'),
  headers: fc.dictionary(
    fc.constantFrom(
      'x-gateway-client-id',
      'tpp-request-id',
      'tpp-transaction-id',
      'country',
      'psu-ip-address',
      'psu-corporate-id',
      'psu-id',
      'accept',
      'content-length-ish',
    ),
    headerValue,
    { maxKeys: 5 },
  ),
  contentType: fc.option(
    fc.constantFrom(
      'application/json',
      'application/x-www-form-urlencoded',
      'text/plain',
      'application/json; charset=latin1',
      'application/json; charset=utf-16',
      'application/x-www-form-urlencoded; charset=UTF-8',
      'multipart/form-data; boundary=x',
      '*/*',
      ';;;',
    ),
    { freq: 5 },
  ),
  body: fc.option(body, { freq: 5 }),
});

function isDocumentedError(value: unknown): boolean {
  const api = value as { httpCode?: unknown; tppMessages?: unknown };
  const oauth = value as { error?: unknown; error_description?: unknown };
  return (
    (typeof api.httpCode === 'string' && Array.isArray(api.tppMessages) && api.tppMessages.length > 0) ||
    (typeof oauth.error === 'string' && typeof oauth.error_description === 'string')
  );
}

test(`${RUNS} generated malformed requests over every route: no 5xx, every error in its documented shape`, async () => {
  const routes = gateway.routes.filter((route) => !route.startsWith('HEAD '));
  assert.ok(routes.length > 40, `${routes.length} routes`);
  const statuses = new Map<number, number>();
  await fc.assert(
    fc.asyncProperty(request, async (generated) => {
      const [routeMethod, routePath] = routes[generated.route % routes.length]!.split(' ') as [
        string,
        string,
      ];
      let index = 0;
      // 'the-payment': the id of a payment that exists, so that the deeper rules are reached too.
      const path = routePath.replace(/:[A-Za-z]+|\*/g, () =>
        generated.parameters[index++ % 4]!.replace('the-payment', paymentId),
      );
      const query = generated.query;
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(generated.headers)) headers[name] = value;
      if (generated.token === 'valid') headers.authorization = `Bearer ${token}`;
      if (generated.token === 'junk') headers.authorization = 'Bearer AAAA.bbbb';
      if (generated.contentType !== null) headers['content-type'] = generated.contentType;
      const method = (generated.methodChange ?? routeMethod) as Method;
      const answer = await call(gateway.app, method, `${path}${query === '' ? '' : `?${query}`}`, {
        headers,
        ...(generated.body === null || method === 'GET' ? {} : { payload: generated.body }),
      });
      statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
      assert.ok(answer.status < 500, `${method} ${path}: ${answer.status} ${JSON.stringify(answer.body)}`);
      if (answer.status >= 400 && typeof answer.body === 'object')
        assert.ok(isDocumentedError(answer.body), `${method} ${path}: ${JSON.stringify(answer.body)}`);
    }),
    { numRuns: RUNS, seed: 20_261_123, interruptAfterTimeLimit: TIME_LIMIT_MS, markInterruptAsFailure: true },
  );
  console.log(
    `# ${RUNS} requests over ${routes.length} routes; statuses ${JSON.stringify(Object.fromEntries(statuses))}`,
  );
});

/** Bytes on a connection of their own; the status the server answers, or undefined when it closed. */
async function raw(bytes: string): Promise<number | undefined> {
  const { hostname, port } = new URL(gateway.url);
  const socket = connect(Number(port), hostname);
  await once(socket, 'connect');
  let received = '';
  socket.on('data', (chunk: Buffer) => {
    received += chunk.toString('latin1');
  });
  socket.on('error', () => {});
  socket.end(bytes, 'latin1');
  const timer = setTimeout(() => socket.destroy(), 5_000);
  await once(socket, 'close');
  clearTimeout(timer);
  const status = /^HTTP\/1\.1 (\d{3}) /.exec(received)?.[1];
  return status === undefined ? undefined : Number(status);
}

test('raw bytes no client would send: 4xx or a closed connection, never a 5xx', async () => {
  const cases = [
    'GARBAGE\r\n\r\n',
    'GET / HTTP/9.9\r\n\r\n',
    'GET /psd2/v1/payments/%ZZ HTTP/1.1\r\nHost: x\r\n\r\n',
    'GET /psd2/v1/accounts HTTP/1.1\r\nHost: x\r\nBad Header: y\r\n\r\n',
    'GET /livez HTTP/1.1\r\nHost: x\r\nX-A: \u0001\r\n\r\n',
    `GET /livez HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
    'POST /oauth2/token/1.0 HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n',
    'POST /oauth2/token/1.0 HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nabcdef',
    'POST /psd2/v1/consents HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: -1\r\n\r\n{}',
    `GET /${'a/'.repeat(5_000)} HTTP/1.1\r\nHost: x\r\n\r\n`,
    'GET /psd2/v1/payments/sepa-credit-transfer/\u00ff\u00fe HTTP/1.1\r\nHost: x\r\n\r\n',
  ];
  for (const bytes of cases) {
    const status = await raw(bytes);
    assert.ok(
      status === undefined || (status >= 400 && status < 500),
      `${JSON.stringify(bytes.slice(0, 60))}: ${status}`,
    );
  }
});

test('over a real connection: 130,000 `[` and invalid UTF-8 to routes that need no token answer 400', async () => {
  const post = (path: string, type: string, body: string) =>
    `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: ${type}\r\nContent-Length: ${Buffer.byteLength(body, 'latin1')}\r\nConnection: close\r\n\r\n${body}`;
  // Valid JSON: closed, it passes the parser and reached the walks that overflowed.
  const deep = `${'['.repeat(130_000)}${']'.repeat(130_000)}`;
  for (const path of ['/psu/login', '/decoupled/eid/initAuthorization/2.0', '/oauth2/token/1.0']) {
    assert.equal(await raw(post(path, 'application/json', deep)), 400, path);
    assert.equal(await raw(post(path, 'application/json', deep.slice(0, 130_000))), 400, path);
    // Latin-1 here is bytes as they are: an overlong '/', a lone surrogate, a stray continuation byte.
    assert.equal(
      await raw(post(path, 'application/json', '{"a":"\u00c0\u00af\u00ed\u00a0\u0080\u0080"}')),
      400,
      path,
    );
  }
});
