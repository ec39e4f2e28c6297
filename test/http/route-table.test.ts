// The route table behind 404 and 405: which methods a path has, and the route a near miss was meant
// for (trailing slash, empty segment, case, base path missing, extra or another, version missing or
// another), named by our pattern, never by the path asked for.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { notFoundText } from '../../src/http/not-found.ts';
import { RouteTable } from '../../src/http/route-table.ts';

/** Some of the app's routes, under `basePath`, in the order the app registers them. */
function table(basePath = ''): RouteTable {
  const routes = new RouteTable(basePath);
  const add = (method: string, path: string, oauth = false) => routes.add(method, basePath + path, oauth);
  add('GET', '/');
  add('HEAD', '/');
  add('GET', '/healthz');
  add('HEAD', '/healthz');
  add('GET', '/docs/static/*');
  add('POST', '/oauth2/token/1.0', true);
  add('POST', '/psd2/v1/payments/:paymentProduct');
  add('GET', '/psd2/v1/payments/:paymentProduct/:paymentId/status');
  add('PUT', '/psd2/v1/payments/:paymentProduct/:paymentId');
  add('DELETE', '/psd2/v1/payments/:paymentProduct/:paymentId');
  add('POST', '/psd2/v1/consents');
  add('GET', '/psd2/v1/consents/:consentId');
  add('DELETE', '/psd2/v1/consents/:consentId');
  add('GET', '/psd2/v2/accounts');
  add('POST', '/psd2/se/v1/*');
  // Outside the base path, as the metrics are.
  routes.add('GET', '/metrics', false);
  return routes;
}

const hint = (routes: RouteTable, method: string, url: string) => notFoundText(routes, url, method);
const NO = (method: string) => `There is no endpoint for ${method} at this path`;
const meant = (method: string, route: string, why: string) =>
  `${NO(method)}; did you mean ${method} ${route} (${why})?`;

describe('the methods of a path', () => {
  const routes = table();
  test('a parameter takes any non-empty segment; a query is not part of the path', () => {
    assert.deepEqual(routes.methodsAt('/psd2/v1/consents/abc?x=1'), {
      methods: ['DELETE', 'GET'],
      oauth: false,
    });
    assert.deepEqual(routes.methodsAt('/psd2/v1/consents//'), { methods: [], oauth: false });
  });
  test('an OAuth route says so; a wildcard takes the rest of the path, empty included', () => {
    assert.deepEqual(routes.methodsAt('/oauth2/token/1.0'), { methods: ['POST'], oauth: true });
    assert.deepEqual(routes.methodsAt('/psd2/se/v1/payments/x'), { methods: ['POST'], oauth: false });
    assert.deepEqual(routes.methodsAt('/psd2/se/v1/'), { methods: ['POST'], oauth: false });
    assert.deepEqual(routes.methodsAt('/psd2/se/v1'), { methods: [], oauth: false });
  });
  test('a path with no route, or one too long to compare', () => {
    assert.deepEqual(routes.methodsAt('/psd2/v1/consent'), { methods: [], oauth: false });
    assert.deepEqual(routes.methodsAt(`/${'a/'.repeat(300)}`), { methods: [], oauth: false });
  });
});

describe('the nearest route, without a base path', () => {
  const routes = table();
  test('a trailing slash, an empty segment', () => {
    assert.equal(
      hint(routes, 'POST', '/psd2/v1/consents/'),
      meant('POST', '/psd2/v1/consents', 'without the trailing slash'),
    );
    assert.equal(
      hint(routes, 'GET', '/psd2/v1//consents/c-1?with=query'),
      meant('GET', '/psd2/v1/consents/{consentId}', 'without the empty segment (//)'),
    );
  });
  test('a missing version, another version', () => {
    assert.equal(
      hint(routes, 'POST', '/oauth2/token'),
      meant('POST', '/oauth2/token/1.0', 'with the version segment 1.0'),
    );
    assert.equal(
      hint(routes, 'POST', '/psd2/consents'),
      meant('POST', '/psd2/v1/consents', 'with the version segment v1'),
    );
    assert.equal(
      hint(routes, 'POST', '/psd2/v3/consents'),
      meant('POST', '/psd2/v1/consents', 'its version is v1'),
    );
    assert.equal(
      hint(routes, 'GET', '/psd2/v1/accounts'),
      meant('GET', '/psd2/v2/accounts', 'its version is v2'),
    );
  });
  test('letter case, with a trailing slash too', () => {
    assert.equal(
      hint(routes, 'GET', '/PSD2/V1/Consents/c-1/'),
      meant('GET', '/psd2/v1/consents/{consentId}', 'without the trailing slash; paths are case-sensitive'),
    );
  });
  test('a base path this gateway does not have', () => {
    assert.equal(
      hint(routes, 'POST', '/openbanking/oauth2/token/1.0'),
      meant('POST', '/oauth2/token/1.0', 'this gateway serves its API with no base path'),
    );
    assert.equal(
      hint(routes, 'POST', '/bb/gls5/psd2/v1/consents'),
      meant('POST', '/psd2/v1/consents', 'this gateway serves its API with no base path'),
    );
  });
  test("another method's route is named with its own methods", () => {
    assert.equal(
      hint(routes, 'GET', '/psd2/v1/consents/'),
      `${NO('GET')}; did you mean POST /psd2/v1/consents (without the trailing slash)?`,
    );
    assert.equal(
      hint(routes, 'POST', '/healthz/'),
      `${NO('POST')}; did you mean GET /healthz (without the trailing slash)?`,
    );
  });
  test('no hint for a path far from every route, nor for one too long or deep to compare', () => {
    assert.equal(hint(routes, 'GET', '/psd2/v1/nothing-here'), NO('GET'));
    assert.equal(hint(routes, 'GET', '/no/such/endpoint/12345'), NO('GET'));
    assert.equal(hint(routes, 'POST', `/psd2/v1/consents/${'x'.repeat(600)}/`), NO('POST'));
    assert.equal(hint(routes, 'POST', `${'/a'.repeat(20)}/psd2/v1/consents`), NO('POST'));
  });
  test('the path asked for is never repeated', () => {
    const text = hint(routes, 'POST', '/<script>/psd2/v1/consents/');
    assert.equal(
      text,
      meant(
        'POST',
        '/psd2/v1/consents',
        'without the trailing slash; this gateway serves its API with no base path',
      ),
    );
  });
});

describe('the nearest route, under BASE_PATH=/openbanking', () => {
  const routes = table('/openbanking');
  test('the base path missing, with a version missing too', () => {
    assert.equal(
      hint(routes, 'POST', '/psd2/v1/consents'),
      meant('POST', '/openbanking/psd2/v1/consents', 'this gateway serves its API under /openbanking'),
    );
    assert.equal(
      hint(routes, 'POST', '/oauth2/token'),
      meant(
        'POST',
        '/openbanking/oauth2/token/1.0',
        'this gateway serves its API under /openbanking; with the version segment 1.0',
      ),
    );
  });
  test('another base path', () => {
    assert.equal(
      hint(routes, 'GET', '/bank/healthz'),
      meant('GET', '/openbanking/healthz', 'this gateway serves its API under /openbanking'),
    );
  });
  test('a route outside the base path asked for under it', () => {
    assert.equal(
      hint(routes, 'GET', '/openbanking/metrics'),
      meant('GET', '/metrics', 'not under the base path /openbanking'),
    );
  });
});
