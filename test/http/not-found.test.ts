// A path no route serves, over HTTP: 404 RESOURCE_UNKNOWN whatever the body (JSON, a form, text, none,
// malformed, over the limit: the path decides before the body is read), with a hint naming our nearest
// route; a path that exists with another method: 405 with Allow, in the route's error shape.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type Gateway, sibling, startGateway } from '../helpers/gateway.ts';
import { errorBody } from '../helpers/http.ts';

const BODY_LIMIT = 4096;

let gateway: Gateway;
let prefixed: Gateway;
before(async () => {
  gateway = await startGateway({ config: { bodyLimit: BODY_LIMIT } });
  prefixed = await sibling(gateway, { config: { bodyLimit: BODY_LIMIT, basePath: '/openbanking' } });
});
after(async () => {
  await prefixed.close();
  await gateway.close();
});

/** The listener's origin: every path below is given whole, base path included. */
const origin = (of: Gateway) => new URL(of.url).origin;

async function send(
  of: Gateway,
  method: string,
  path: string,
  body?: { type?: string; content: string },
): Promise<{ status: number; headers: Headers; body: unknown }> {
  const answer = await fetch(origin(of) + path, {
    method,
    headers: {
      'tpp-request-id': 'r-404',
      ...(body?.type === undefined ? {} : { 'content-type': body.type }),
    },
    ...(body === undefined ? {} : { body: body.content }),
  });
  return { status: answer.status, headers: answer.headers, body: await answer.json() };
}

const notFound = (text: string) => ({
  status: 404,
  body: errorBody(404, 'Not Found', { code: 'RESOURCE_UNKNOWN', text }),
});
const NO_POST = 'There is no endpoint for POST at this path';

const BODIES = {
  json: { type: 'application/json', content: '{"access":{}}' },
  form: { type: 'application/x-www-form-urlencoded', content: 'grant_type=client_credentials&scope=PIS' },
  text: { type: 'text/plain', content: 'hello' },
  none: undefined,
  'malformed JSON': { type: 'application/json', content: '{"access":' },
  'JSON nested too deep': { type: 'application/json', content: '['.repeat(100) },
  'a form over the limit': {
    type: 'application/x-www-form-urlencoded',
    content: `a=${'x'.repeat(BODY_LIMIT * 4)}`,
  },
  'JSON over the limit': { type: 'application/json', content: `"${'x'.repeat(BODY_LIMIT * 4)}"` },
  'an unknown media type': { type: 'application/xml', content: '<consent/>' },
} as const;

describe('the path decides before the body', () => {
  for (const [kind, body] of Object.entries(BODIES)) {
    test(`${kind}: 404 with the hint, the request's id echoed`, async () => {
      const answer = await send(gateway, 'POST', '/psd2/v1/consents/', body);
      assert.deepEqual(
        { status: answer.status, body: answer.body },
        notFound(`${NO_POST}; did you mean POST /psd2/v1/consents (without the trailing slash)?`),
      );
      assert.equal(answer.headers.get('tpp-request-id'), 'r-404');
      assert.match(answer.headers.get('content-type') ?? '', /^application\/json/);
    });
  }
});

describe('each kind of near miss', () => {
  const form = BODIES.form;
  test('the token endpoint without its version, posted a form', async () => {
    assert.deepEqual(
      await send(gateway, 'POST', '/oauth2/token', form).then(({ status, body }) => ({ status, body })),
      notFound(`${NO_POST}; did you mean POST /oauth2/token/1.0 (with the version segment 1.0)?`),
    );
  });
  test('the API without its version, with a trailing slash too', async () => {
    const answer = await send(gateway, 'POST', '/psd2/consents/', BODIES.json);
    assert.deepEqual(
      { status: answer.status, body: answer.body },
      notFound(
        `${NO_POST}; did you mean POST /psd2/v1/consents (without the trailing slash; with the version segment v1)?`,
      ),
    );
  });
  test('letter case', async () => {
    const answer = await send(gateway, 'GET', '/Psd2/V1/Consents/c-1');
    assert.deepEqual(
      { status: answer.status, body: answer.body },
      notFound(
        'There is no endpoint for GET at this path; did you mean GET /psd2/v1/consents/{consentId} (paths are case-sensitive)?',
      ),
    );
  });
  test('a base path this gateway does not have', async () => {
    const answer = await send(gateway, 'POST', '/openbanking/oauth2/token/1.0', form);
    assert.deepEqual(
      { status: answer.status, body: answer.body },
      notFound(
        `${NO_POST}; did you mean POST /oauth2/token/1.0 (this gateway serves its API with no base path)?`,
      ),
    );
  });
  test('BASE_PATH set, the request without it: a form to the token endpoint', async () => {
    const answer = await send(prefixed, 'POST', '/oauth2/token/1.0', form);
    assert.deepEqual(
      { status: answer.status, body: answer.body },
      notFound(
        `${NO_POST}; did you mean POST /openbanking/oauth2/token/1.0 (this gateway serves its API under /openbanking)?`,
      ),
    );
  });
  test('BASE_PATH set, the request under another one, with another version', async () => {
    const answer = await send(prefixed, 'POST', '/bank/psd2/v2/consents', BODIES.json);
    assert.deepEqual(
      { status: answer.status, body: answer.body },
      notFound(
        `${NO_POST}; did you mean POST /openbanking/psd2/v1/consents (this gateway serves its API under /openbanking; its version is v1)?`,
      ),
    );
  });
  test('nothing near: no hint, and the path is not repeated', async () => {
    const answer = await send(gateway, 'POST', '/no/such/endpoint/<b>', BODIES.text);
    assert.deepEqual({ status: answer.status, body: answer.body }, notFound(NO_POST));
  });
});

describe('a path that exists, with another method', () => {
  test('405 SERVICE_INVALID with Allow, whatever the body', async () => {
    for (const body of [BODIES.form, BODIES['JSON over the limit'], undefined]) {
      const answer = await send(gateway, 'PUT', '/psd2/v1/consents', body);
      assert.deepEqual(
        { status: answer.status, allow: answer.headers.get('allow'), body: answer.body },
        {
          status: 405,
          allow: 'POST',
          body: errorBody(405, 'Method Not Allowed', {
            code: 'SERVICE_INVALID',
            text: 'This endpoint takes POST, not PUT',
          }),
        },
      );
    }
    const health = await send(gateway, 'DELETE', '/healthz');
    assert.deepEqual(
      { status: health.status, allow: health.headers.get('allow') },
      { status: 405, allow: 'GET, HEAD' },
    );
  });
  test('an OAuth endpoint answers in the OAuth shape', async () => {
    const answer = await send(prefixed, 'GET', '/openbanking/oauth2/token/1.0');
    assert.deepEqual(
      { status: answer.status, allow: answer.headers.get('allow'), body: answer.body },
      {
        status: 405,
        allow: 'POST',
        body: { error: 'invalid_request', error_description: 'This endpoint takes POST, not GET' },
      },
    );
  });
});
