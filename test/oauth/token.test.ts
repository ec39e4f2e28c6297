// POST /oauth2/token/1.0: client credentials, authorization code (single-use, bound, PKCE), RFC 6749 errors.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { pkceChallenge } from '../../src/domain/secrets.ts';
import { type Gateway, manualClock, queryRows, sibling, startGateway } from '../helpers/gateway.ts';
import { call, statusAndBody } from '../helpers/http.ts';
import { domestic } from '../helpers/payments.ts';

let gateway: Gateway;
before(async () => {
  gateway = await startGateway();
});
after(() => gateway.close());

function token(
  form: Record<string, string> | string,
  path = '/oauth2/token/1.0',
  contentType = 'application/x-www-form-urlencoded',
) {
  const payload = typeof form === 'string' ? form : new URLSearchParams(form).toString();
  return call(gateway.app, 'POST', path, {
    headers: { 'content-type': contentType, accept: 'application/json' },
    payload,
  });
}

const oauthError = (status: number, error: string, description: string) => ({
  status,
  body: { error, error_description: description },
});

/** Initiates a payment with the sandbox app; answers its id. */
async function newPayment(): Promise<string> {
  const client = gateway.client;
  const cc = await client.clientCredentialsToken();
  const answer = await client.initiate(cc, {
    path: '/psd2/se/v2/payments/private/single/handelsbanken-domestic-credit-transfer',
    body: domestic(),
  });
  assert.equal(answer.status, 200);
  return answer.body.paymentId;
}

describe('client credentials', () => {
  test('scope PIS: 86400 s, Bearer, no-store', async () => {
    const answer = await token({
      grant_type: 'client_credentials',
      scope: 'PIS',
      client_id: gateway.sandboxApp.clientId,
    });
    assert.equal(answer.status, 200);
    const body = answer.body as Record<string, unknown>;
    assert.match(String(body.access_token), /^[A-Za-z0-9_-]{43}$/);
    assert.deepEqual(body, { access_token: body.access_token, expires_in: 86400, token_type: 'Bearer' });
    assert.equal(answer.headers['cache-control'], 'no-store');
    assert.equal(answer.headers.pragma, 'no-cache');
  });

  test('the token is stored only as its hash', async () => {
    const answer = await token({
      grant_type: 'client_credentials',
      scope: 'PIS',
      client_id: gateway.sandboxApp.clientId,
    });
    const secret = (answer.body as { access_token: string }).access_token;
    const rows = await queryRows<{ token_hash: string }>(
      gateway.store,
      sql`SELECT token_hash FROM access_tokens`,
    );
    assert.ok(rows.length > 0, 'a token is stored');
    assert.ok(
      rows.every(
        (row: { token_hash: string }) => row.token_hash !== secret && /^[0-9a-f]{64}$/.test(row.token_hash),
      ),
      'tokens are stored as their SHA-256 only',
    );
  });

  test('errors', async () => {
    const clientId = gateway.sandboxApp.clientId;
    const cases: [Record<string, string> | string, { status: number; body: unknown }][] = [
      [{ scope: 'PIS', client_id: clientId }, oauthError(400, 'invalid_request', 'grant_type is required')],
      [
        { grant_type: 'password', scope: 'PIS', client_id: clientId },
        oauthError(
          400,
          'unsupported_grant_type',
          'grant_type must be client_credentials, authorization_code or refresh_token',
        ),
      ],
      [
        { grant_type: 'client_credentials', client_id: clientId },
        oauthError(400, 'invalid_request', 'scope is required'),
      ],
      [
        { grant_type: 'client_credentials', scope: 'PIS' },
        oauthError(400, 'invalid_request', 'client_id is required'),
      ],
      [
        { grant_type: 'client_credentials', scope: 'PIS', client_id: 'unknown' },
        oauthError(401, 'invalid_client', 'client authentication failed'),
      ],
      [
        { grant_type: 'client_credentials', scope: 'PIS:123', client_id: clientId },
        oauthError(
          400,
          'invalid_scope',
          'scope is not available with client credentials; use PIS, AIS or CBPII',
        ),
      ],
      [
        `grant_type=client_credentials&scope=PIS&scope=PIS&client_id=${clientId}`,
        oauthError(400, 'invalid_request', 'scope must be given once'),
      ],
    ];
    for (const [form, expected] of cases)
      assert.deepEqual(statusAndBody(await token(form)), expected, JSON.stringify(form));
  });

  test('form-encoded only', async () => {
    const json = await token(
      JSON.stringify({ grant_type: 'client_credentials' }),
      '/oauth2/token/1.0',
      'application/json',
    );
    assert.deepEqual(
      statusAndBody(json),
      oauthError(400, 'invalid_request', 'the body must be application/x-www-form-urlencoded'),
    );
    const plain = await token('grant_type=client_credentials', '/oauth2/token/1.0', 'text/plain');
    assert.deepEqual(
      statusAndBody(plain),
      oauthError(415, 'invalid_request', 'the body must be application/x-www-form-urlencoded'),
    );
  });

  test('the alias paths', async () => {
    for (const path of ['/redirect/oauth2/token/1.0', '/refresh/oauth2/token/1.0']) {
      const answer = await token(
        { grant_type: 'client_credentials', scope: 'PIS', client_id: gateway.sandboxApp.clientId },
        path,
      );
      assert.equal(answer.status, 200, path);
    }
  });
});

describe('authorization code', () => {
  test('single-use: a replayed code is invalid_grant and revokes the token it issued', async () => {
    const client = gateway.client;
    const paymentId = await newPayment();
    const scope = `PIS:${paymentId}`;
    const code = (await client.authorize(scope, 'st')).get('code')!;
    const first = await client.exchangeCode(scope, code);
    assert.equal(first.status, 200);
    const psuToken = first.body.access_token;
    const replay = await client.exchangeCode(scope, code);
    assert.deepEqual(
      [replay.status, replay.body],
      [400, { error: 'invalid_grant', error_description: 'the code has already been used' }],
    );
    const executed = await client.execute('handelsbanken-domestic-credit-transfer', paymentId, psuToken);
    assert.equal(executed.status, 401);
    assert.equal(
      (executed.body as unknown as { tppMessages: { code: string }[] }).tppMessages[0]!.code,
      'TOKEN_INVALID',
    );
  });

  test('every parameter is checked against the code', async () => {
    const client = gateway.client;
    const paymentId = await newPayment();
    const scope = `PIS:${paymentId}`;
    const code = (await client.authorize(scope, 'st')).get('code')!;
    const other = await gateway.addApp();
    const base = {
      grant_type: 'authorization_code',
      scope,
      client_id: client.clientId,
      code,
      redirect_uri: client.redirectUri,
    };
    const cases: [Record<string, string>, { status: number; body: unknown }][] = [
      [{ ...base, code: 'x'.repeat(43) }, oauthError(400, 'invalid_grant', 'the code is not valid')],
      [{ ...base, client_id: other.clientId }, oauthError(400, 'invalid_grant', 'the code is not valid')],
      [
        { ...base, redirect_uri: 'https://tpp.example/other' },
        oauthError(400, 'invalid_grant', 'redirect_uri differs from the one of the authorization request'),
      ],
      [
        { ...base, scope: 'PIS:00000000-0000-0000-0000-000000000000' },
        oauthError(400, 'invalid_scope', 'scope differs from the one that was authorized'),
      ],
      [
        { ...base, code_verifier: 'v'.repeat(43) },
        oauthError(400, 'invalid_grant', 'code_verifier sent but no code_challenge was'),
      ],
    ];
    for (const name of ['code', 'redirect_uri', 'scope', 'client_id']) {
      const { [name]: _, ...rest } = base as Record<string, string>;
      cases.push([rest, oauthError(400, 'invalid_request', `${name} is required`)]);
    }
    for (const [form, expected] of cases)
      assert.deepEqual(statusAndBody(await token(form)), expected, JSON.stringify(form));
    // None of the failed attempts used the code up.
    assert.equal((await client.exchangeCode(scope, code)).status, 200);
  });

  test('an expired code', async () => {
    const time = manualClock();
    const timed = await sibling(gateway, { clock: time.clock });
    try {
      const cc = await timed.client.clientCredentialsToken();
      const initiated = await timed.client.initiate(cc, {
        path: '/psd2/se/v2/payments/private/single/handelsbanken-domestic-credit-transfer',
        body: domestic(),
      });
      const scope = `PIS:${initiated.body.paymentId}`;
      const code = (await timed.client.authorize(scope, 'st')).get('code')!;
      time.advance(601_000);
      const answer = await timed.client.exchangeCode(scope, code);
      assert.deepEqual(
        [answer.status, answer.body],
        [400, { error: 'invalid_grant', error_description: 'the code has expired' }],
      );
    } finally {
      await timed.close();
    }
  });

  test('PKCE S256: accepted, then enforced', async () => {
    const client = gateway.client;
    const paymentId = await newPayment();
    const scope = `PIS:${paymentId}`;
    const verifier = 'a-verifier-of-at-least-forty-three-characters-long';
    const code = (
      await client.authorize(scope, 'st', {
        code_challenge: pkceChallenge(verifier),
        code_challenge_method: 'S256',
      })
    ).get('code')!;
    assert.deepEqual((await client.exchangeCode(scope, code)).body, {
      error: 'invalid_grant',
      error_description: 'code_verifier is required and must be 43 to 128 characters',
    });
    assert.deepEqual((await client.exchangeCode(scope, code, { code_verifier: `${verifier}x` })).body, {
      error: 'invalid_grant',
      error_description: 'code_verifier does not match the code_challenge',
    });
    assert.equal((await client.exchangeCode(scope, code, { code_verifier: verifier })).status, 200);
  });
});
