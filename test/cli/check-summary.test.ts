// How the checker tells what an answer said: the error body's code and whole text (a 404's hint
// included), the path asked for when the status is about it, and the base URL as the suspect when a
// path reached no endpoint of the contract (a 404 without the contract's error body, or a 415 to the
// very media type the contract names there).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { summary } from '../../packages/check/src/expect.ts';
import type { Answer } from '../../packages/check/src/http.ts';

function answer(status: number, body: unknown, asked: Answer['asked']): Answer {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  return {
    status,
    headers: new Headers(),
    contentType: typeof body === 'string' ? 'text/html' : 'application/json',
    text,
    json: typeof body === 'string' ? undefined : body,
    asked,
  };
}

const apiError = (status: number, code: string, text: string) => ({
  httpCode: String(status),
  httpMessage: 'x',
  moreInformation: text,
  tppMessages: [{ category: 'ERROR', code, text }],
});

const FORM = 'application/x-www-form-urlencoded';
const TOKEN = { method: 'POST', path: '/openbanking/oauth2/token/1.0', mediaType: FORM };
const HINT =
  'There is no endpoint for POST at this path; did you mean POST /oauth2/token/1.0 (this gateway serves its API with no base path)?';

test("a 404 for a path: the path asked for and the answer's whole text, hint included", () => {
  assert.equal(
    summary(answer(404, apiError(404, 'RESOURCE_UNKNOWN', HINT), TOKEN)),
    `404 RESOURCE_UNKNOWN at POST /openbanking/oauth2/token/1.0: ${HINT}`,
  );
});

test('a 415 to the form the contract names: the path reached another endpoint, not a media type to change', () => {
  assert.equal(
    summary(
      answer(415, apiError(415, 'UNSUPPORTED_MEDIA_TYPE', 'Content-Type must be application/json'), TOKEN),
    ),
    '415 UNSUPPORTED_MEDIA_TYPE at POST /openbanking/oauth2/token/1.0: Content-Type must be application/json' +
      ` (the ${FORM} body the contract names was refused: the path reached another endpoint; is --base-url right?)`,
  );
  // A body the check chose to send otherwise (no media type recorded): the answer as it is.
  const raw = { method: 'POST', path: '/oauth2/token/1.0' };
  assert.equal(
    summary(answer(415, { error: 'invalid_request', error_description: 'the body must be a form' }, raw)),
    '415 invalid_request at POST /oauth2/token/1.0: the body must be a form',
  );
});

test('a 404 without an error body of the contract: a path this server does not have', () => {
  assert.equal(
    summary(answer(404, '<html><body>Not Found</body></html>', TOKEN)),
    '404 at POST /openbanking/oauth2/token/1.0: no such path here (is --base-url right?): <html><body>Not Found</body></html>',
  );
  assert.equal(
    summary(answer(404, '', { method: 'GET', path: '/psd2/v1/payments/x/y/status' })),
    '404 at GET /psd2/v1/payments/x/y/status: no such path here (is --base-url right?): (no body)',
  );
});

test('other errors: the code and the text; other answers: the start of the body', () => {
  const initiation = {
    method: 'POST',
    path: '/psd2/v1/payments/sepa-credit-transfer',
    mediaType: 'application/json',
  };
  assert.equal(
    summary(answer(400, apiError(400, 'FORMAT_ERROR', 'instructedAmount.amount is required'), initiation)),
    '400 FORMAT_ERROR: instructedAmount.amount is required',
  );
  assert.equal(
    summary(answer(401, { error: 'invalid_client', error_description: 'unknown client' }, TOKEN)),
    '401 invalid_client: unknown client',
  );
  assert.equal(summary(answer(500, 'oops', initiation)), '500 oops');
  assert.equal(summary(answer(200, { paymentId: 'p' }, initiation)), '200 {"paymentId":"p"}');
});
