// grant_type=refresh_token: for account access only (payments get none); as the real service keeps
// them, a refresh answers a new access token and no new refresh token, and the first refresh token
// stays valid while its consent does.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { issuePsuTokens, resolveToken } from '../../src/services/access/tokens.ts';
import type { ServiceContext } from '../../src/services/shared/context.ts';
import { type Gateway, manualClock, serviceContext, startGateway } from '../helpers/gateway.ts';
import { call, statusAndBody } from '../helpers/http.ts';

const time = manualClock();
let gateway: Gateway;
let context: ServiceContext;
before(async () => {
  gateway = await startGateway({ clock: time.clock });
  context = serviceContext(gateway, { clock: time.clock });
});
after(() => gateway.close());

/** An account consent authorized by the sandbox PSU through the redirect flow: its scope and tokens. */
async function accountAccessTokens() {
  const client = gateway.client;
  const created = await client.createConsent(await client.clientCredentialsToken('AIS'));
  const scope = `AIS:${created.body.consentId}`;
  return { scope, ...(await client.authorizeScope(scope)) };
}

function refresh(
  refreshToken: string,
  extra: Record<string, string> = {},
  path = '/refresh/oauth2/token/1.0',
) {
  const form = new URLSearchParams({
    grant_type: 'refresh_token',
    refresh_token: refreshToken,
    client_id: gateway.sandboxApp.clientId,
    ...extra,
  });
  return call(gateway.app, 'POST', path, {
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    payload: form.toString(),
  });
}

const invalidGrant = (description: string) => ({
  status: 400,
  body: { error: 'invalid_grant', error_description: description },
});

test('account access gets a refresh token; a refresh answers an access token of the same scope and PSU, and no new refresh token', async () => {
  const first = await accountAccessTokens();
  assert.match(first.refresh_token!, /^[A-Za-z0-9_-]{43}$/);
  const answer = await refresh(first.refresh_token!);
  assert.equal(answer.status, 200);
  const body = answer.body as { access_token: string };
  assert.deepEqual(body, { access_token: body.access_token, expires_in: 900, token_type: 'Bearer' });
  const { consent, ...grant } = await resolveToken(context, body.access_token);
  assert.deepEqual(grant, {
    kind: 'refresh_token',
    clientId: gateway.sandboxApp.clientId,
    scope: first.scope,
    psuId: '191212121212',
  });
  // The account consent its scope names, read with the token.
  assert.deepEqual(
    [consent?.consentId, consent?.psuId, consent?.status],
    [first.scope.slice('AIS:'.length), '191212121212', 'valid'],
  );
});

test('the refresh token is not rotated: the client keeps using its first one, on every token path', async () => {
  const first = await accountAccessTokens();
  const tokens = new Set<string>();
  for (const path of ['/refresh/oauth2/token/1.0', '/oauth2/token/1.0', '/refresh/oauth2/token/1.0']) {
    const answer = await refresh(first.refresh_token!, {}, path);
    assert.equal(answer.status, 200, path);
    tokens.add((answer.body as { access_token: string }).access_token);
  }
  assert.equal(tokens.size, 3, 'a new access token each time');
});

test('bound to its client, its scope and its lifetime', async () => {
  const tokens = await accountAccessTokens();
  const other = await gateway.addApp();
  assert.deepEqual(
    statusAndBody(await refresh(tokens.refresh_token!, { client_id: other.clientId })),
    invalidGrant('the refresh token is not valid'),
  );
  assert.deepEqual(statusAndBody(await refresh(tokens.refresh_token!, { scope: 'AIS:other' })), {
    status: 400,
    body: {
      error: 'invalid_scope',
      error_description: 'scope must be the one of the original authorization',
    },
  });
  assert.deepEqual(
    statusAndBody(await refresh('x'.repeat(43))),
    invalidGrant('the refresh token is not valid'),
  );
  // Valid as long as the consent (180 days by default), well past the 90 days of a rotated token.
  time.advance(170 * 86_400_000);
  assert.equal((await refresh(tokens.refresh_token!)).status, 200);
  time.advance(11 * 86_400_000);
  assert.deepEqual(
    statusAndBody(await refresh(tokens.refresh_token!)),
    invalidGrant('the refresh token has expired'),
  );
});

test('payments get no refresh token', async () => {
  const tokens = await issuePsuTokens(gateway.store.db, context, {
    kind: 'decoupled',
    clientId: gateway.sandboxApp.clientId,
    scope: 'PIS:x',
    psuId: '191212121212',
    codeHash: null,
  });
  assert.deepEqual(Object.keys(tokens).sort(), ['access_token', 'expires_in', 'token_type']);
});
