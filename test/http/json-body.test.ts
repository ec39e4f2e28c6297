// A JSON body nested deeper than MAX_JSON_DEPTH is refused as FORMAT_ERROR before it is parsed or
// walked (issue 37: about 130,000 `[` overflowed the stack of a walk and answered 500, on routes
// that need no certificate and no token).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../../src/http/json-body.ts';
import { type Gateway, startGateway } from '../helpers/gateway.ts';
import { BAD_REQUEST, call } from '../helpers/http.ts';
import { domestic } from '../helpers/payments.ts';

const TOO_DEEP = 'the body is nested deeper than 32 levels of arrays and objects';
const JSON_TYPE = { 'content-type': 'application/json' };

describe('the depth scan', () => {
  test('counts arrays and objects inside each other, not brackets in strings', () => {
    assert.equal(MAX_JSON_DEPTH, 32);
    const depth = (levels: number) => `${'['.repeat(levels)}1${']'.repeat(levels)}`;
    assert.equal(nestsDeeperThan(depth(32), 32), false);
    assert.equal(nestsDeeperThan(depth(33), 32), true);
    assert.equal(nestsDeeperThan(`${'{"a":'.repeat(33)}1${'}'.repeat(33)}`, 32), true);
    // Siblings do not add up; closing brackets bring the depth back.
    assert.equal(nestsDeeperThan(`[${`${'['.repeat(31)}${']'.repeat(31)},`.repeat(100)}1]`, 32), false);
    // Brackets in strings, escaped quotes included, are text.
    assert.equal(nestsDeeperThan(JSON.stringify({ a: '['.repeat(1000) }), 32), false);
    assert.equal(nestsDeeperThan(JSON.stringify({ a: `\\"${'['.repeat(1000)}\\"` }), 32), false);
    assert.equal(nestsDeeperThan(`["\\\\"${'['.repeat(33)}`, 32), true);
    // Not valid JSON is not its business: an unclosed run of brackets is deep all the same.
    assert.equal(nestsDeeperThan('['.repeat(130_000), 32), true);
    assert.equal(nestsDeeperThan(']'.repeat(130_000) + '['.repeat(32), 32), false);
  });
});

/** The nesting of a parsed value (the walk the scan spares the gateway; fine on these small values). */
function depthOf(value: unknown): number {
  if (value === null || typeof value !== 'object') return 0;
  const members = Array.isArray(value) ? value : Object.values(value);
  return 1 + Math.max(0, ...members.map(depthOf));
}

test('the scan agrees with the nesting of the parsed value, whatever the strings hold', () => {
  const text = fc.string({
    unit: fc.constantFrom('[', ']', '{', '}', '"', '\\', 'a', ':', ','),
    maxLength: 8,
  });
  const value = fc.jsonValue({
    maxDepth: 4,
    stringUnit: fc.oneof(fc.constantFrom('[', '{', '"', '\\'), text),
  });
  fc.assert(
    fc.property(
      value,
      fc.array(fc.boolean(), { maxLength: 40 }),
      fc.integer({ min: 0, max: 40 }),
      (inner, wraps, limit) => {
        let wrapped: unknown = inner;
        for (const array of wraps) wrapped = array ? [wrapped] : { [String(wraps.length)]: wrapped };
        const json = JSON.stringify(wrapped);
        assert.equal(nestsDeeperThan(json, limit), depthOf(wrapped) > limit, json);
      },
    ),
    { numRuns: 500 },
  );
});

describe('a body nested too deep', () => {
  let gateway: Gateway;
  before(async () => {
    gateway = await startGateway();
  });
  after(() => gateway.close());

  const DEEP = '['.repeat(130_000);

  test('130,000 `[` without a certificate or a token: 400 FORMAT_ERROR, on pages and onboarding', async () => {
    for (const [path, headers] of [
      ['/psu/login', JSON_TYPE],
      ['/psu/consent', JSON_TYPE],
      ['/psd2/v1/third-parties', { ...JSON_TYPE, 'tpp-request-id': 'r-1', 'tpp-transaction-id': 't-1' }],
    ] as const) {
      for (const payload of [DEEP, `${DEEP}${']'.repeat(130_000)}`]) {
        const answer = await call(gateway.app, 'POST', path, { headers, payload });
        assert.deepEqual(
          { status: answer.status, body: answer.body },
          BAD_REQUEST({ code: 'FORMAT_ERROR', text: TOO_DEEP }),
          path,
        );
      }
    }
  });

  test('the OAuth routes answer it in their shape: the decoupled flow and the token endpoint', async () => {
    for (const path of [
      '/decoupled/eid/initAuthorization/2.0',
      '/decoupled/mbid/initAuthorization/1.0',
      '/decoupled/eid/token/2.0',
      '/decoupled/eid/cancel/2.0',
      '/oauth2/token/1.0',
    ]) {
      const answer = await call(gateway.app, 'POST', path, { headers: JSON_TYPE, payload: DEEP });
      assert.deepEqual(
        { status: answer.status, body: answer.body },
        { status: 400, body: { error: 'invalid_request', error_description: TOO_DEEP } },
        path,
      );
    }
  });

  test('an initiation nested one level too deep is refused; at the limit the schema decides', async () => {
    const token = await gateway.client.clientCredentialsToken();
    const headers = { ...gateway.client.tppHeaders(token), ...JSON_TYPE };
    const path = '/psd2/se/v2/payments/private/single/handelsbanken-domestic-credit-transfer';
    // The body object is one level; its member adds the others.
    const at = (levels: number) =>
      JSON.stringify(domestic()).replace(
        /}$/,
        `,"extra":${'['.repeat(levels - 1)}${']'.repeat(levels - 1)}}`,
      );
    const deep = await call(gateway.app, 'POST', path, {
      headers: { ...headers, 'tpp-request-id': 'r-deep' },
      payload: at(MAX_JSON_DEPTH + 1),
    });
    assert.deepEqual(
      { status: deep.status, body: deep.body },
      BAD_REQUEST({ code: 'FORMAT_ERROR', text: TOO_DEEP }),
    );
    const limit = await call(gateway.app, 'POST', path, {
      headers: { ...headers, 'tpp-request-id': 'r-limit' },
      payload: at(MAX_JSON_DEPTH),
    });
    // An unknown member is set aside (X-Ignored-Fields), whatever its depth: the payment is made.
    assert.equal(limit.status, 200, JSON.stringify(limit.body));
    assert.equal(limit.headers['x-ignored-fields'], 'extra');
  });
});

describe('a body wide within the limit', () => {
  let gateway: Gateway;
  let headers: Record<string, string>;
  before(async () => {
    gateway = await startGateway();
    headers = { ...gateway.client.tppHeaders(await gateway.client.clientCredentialsToken()), ...JSON_TYPE };
  });
  after(() => gateway.close());

  test('120,000 wrong items: the first 20 fields named, the others counted (not a 12 MB answer)', async () => {
    const answer = await call(gateway.app, 'POST', '/psd2/se/v2/payments/private/signing-basket', {
      headers,
      payload: JSON.stringify({ payments: new Array(120_000).fill(1) }),
    });
    const item = (index: number) => ({
      code: 'FORMAT_ERROR',
      path: `payments.${index}`,
      text: `payments.${index} must be object`,
    });
    assert.deepEqual(
      { status: answer.status, body: answer.body },
      BAD_REQUEST(
        { code: 'FORMAT_ERROR', path: 'payments', text: 'payments must NOT have more than 50 items' },
        ...Array.from({ length: 19 }, (_, index) => item(index)),
        { code: 'FORMAT_ERROR', text: 'and 119981 more fields with a problem' },
      ),
    );
  });

  test('12,000 unknown members and a 250,000-character name: set aside, named only when they can be', async () => {
    const path = '/psd2/se/v2/payments/private/single/handelsbanken-domestic-credit-transfer';
    const many = Object.fromEntries(Array.from({ length: 12_000 }, (_, index) => [`k${index}`, [index]]));
    const wide = await call(gateway.app, 'POST', path, {
      headers: { ...headers, 'tpp-request-id': 'r-wide' },
      payload: JSON.stringify({ ...domestic(), ...many }),
    });
    assert.equal(wide.status, 200, JSON.stringify(wide.body));
    const named = Array.from({ length: 20 }, (_, index) => `k${index}`).join(', ');
    assert.equal(wide.headers['x-ignored-fields'], `${named}, +11980 more`);
    const long = await call(gateway.app, 'POST', path, {
      headers: { ...headers, 'tpp-request-id': 'r-long' },
      payload: JSON.stringify({ ...domestic(), ['k'.repeat(250_000)]: 1 }),
    });
    assert.equal(long.status, 200, JSON.stringify(long.body));
    assert.equal(long.headers['x-ignored-fields'], '+1 more');
    // A long name the schema refuses is not repeated either (a closed object of the consent body).
    const ais = await gateway.client.clientCredentialsToken('AIS');
    const consent = await call(gateway.app, 'POST', '/psd2/v1/consents', {
      headers: { ...gateway.client.tppHeaders(ais), ...JSON_TYPE },
      payload: JSON.stringify({ access: { ['k'.repeat(250_000)]: 1 } }),
    });
    assert.equal(consent.status, 400);
    assert.ok(!JSON.stringify(consent.body).includes('kkkk'), JSON.stringify(consent.body).slice(0, 300));
  });
});
