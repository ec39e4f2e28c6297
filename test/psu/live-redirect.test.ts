// The live redirect flow over HTTP: login, consent with amount and payee, approve or deny, CSRF,
// idle expiry, dynamic linking, the wrong PSU, and codes that live 60 s.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { TEST_PSU_PASSWORD } from '../../src/sandbox/seed.ts';
import { type Gateway, manualClock, startGateway } from '../helpers/gateway.ts';
import { otherBank } from '../helpers/payments.ts';
import { openAuthorize, post, redirectQuery } from '../helpers/psu-pages.ts';

const time = manualClock();
let gateway: Gateway;
let token: string;
before(async () => {
  gateway = await startGateway({ clock: time.clock, config: { mode: 'live' } });
  token = await gateway.client.clientCredentialsToken();
});
after(() => gateway.close());

const PRODUCT = 'other-bank-domestic-credit-transfer';

async function paymentId(body: Record<string, unknown> = {}) {
  const answer = await gateway.client.initiate(token, {
    path: `/psd2/se/v2/payments/private/single/${PRODUCT}`,
    body: otherBank({ creditor: { name: 'Sven <b>Svensson</b>' }, ...body }),
  });
  assert.equal(answer.status, 200, JSON.stringify(answer.body));
  return answer.body.paymentId;
}

function parameters(id: string, extra: Record<string, string> = {}) {
  return {
    response_type: 'code',
    scope: `PIS:${id}`,
    client_id: gateway.sandboxApp.clientId,
    state: 'st-1',
    redirect_uri: gateway.sandboxApp.redirectUri,
    ...extra,
  };
}

const LOGIN = { psu_id: '191212121212', password: TEST_PSU_PASSWORD };

test('login page, then a consent page with amount, payee, accounts and the app; approve gives a code that executes', async () => {
  const id = await paymentId();
  const login = await openAuthorize(gateway, parameters(id));
  assert.equal(login.answer.status, 200);
  assert.equal(login.answer.headers['cache-control'], 'no-store');
  assert.match(String(login.answer.headers['content-type']), /^text\/html/);
  assert.match(
    String(login.answer.headers['set-cookie']),
    /^psu_csrf=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Strict/,
  );
  assert.match(login.html, /Requested by <strong>Sandbox app<\/strong>/);
  assert.doesNotMatch(login.html, /https?:\/\/(?!www\.w3)/, 'no external assets');
  const consent = await post(gateway, '/psu/login', login, LOGIN);
  assert.equal(consent.answer.status, 200);
  assert.match(consent.html, /data-field="amount">99\.90 SEK</);
  assert.match(consent.html, /data-field="creditor">Sven &lt;b&gt;Svensson&lt;\/b&gt;</, 'escaped');
  assert.match(consent.html, /data-field="creditor-account">50001234501</);
  assert.match(consent.html, /data-field="debtor-account">SE7160000000000123456789</);
  const approved = await post(gateway, '/psu/consent', consent, { decision: 'approve' });
  assert.equal(approved.answer.status, 302);
  const query = redirectQuery(approved);
  assert.deepEqual(Object.keys(query).sort(), ['code', 'state']);
  assert.equal(query.state, 'st-1');
  const psuToken = await gateway.client.exchangeCode(`PIS:${id}`, query.code!);
  assert.equal(psuToken.status, 200);
  const executed = await gateway.client.execute(PRODUCT, id, psuToken.body.access_token);
  assert.deepEqual([executed.status, executed.body], [200, { paymentId: id, transactionStatus: 'ACSC' }]);
});

test('deny: access_denied back at the TPP', async () => {
  const login = await openAuthorize(gateway, parameters(await paymentId()));
  const consent = await post(gateway, '/psu/login', login, LOGIN);
  const denied = await post(gateway, '/psu/consent', consent, { decision: 'deny' });
  assert.deepEqual(redirectQuery(denied), {
    error: 'access_denied',
    error_description: 'the PSU denied the authorization',
    state: 'st-1',
  });
  const again = await post(gateway, '/psu/consent', consent, { decision: 'approve' });
  assert.equal(again.answer.status, 400, 'a finished request takes no second answer');
});

test('a tampered CSRF token or a missing cookie is refused', async () => {
  const login = await openAuthorize(gateway, parameters(await paymentId()));
  const tampered = await post(gateway, '/psu/login', login, LOGIN, { csrf: 'x'.repeat(43) });
  assert.equal(tampered.answer.status, 400);
  assert.match(tampered.html, /This page is no longer valid/);
  const noCookie = await post(gateway, '/psu/login', login, LOGIN, { cookie: 'y'.repeat(43) });
  assert.equal(noCookie.answer.status, 400);
  const fine = await post(gateway, '/psu/login', login, LOGIN);
  assert.equal(fine.answer.status, 200);
});

test('an idle page expires after 5 minutes', async () => {
  const login = await openAuthorize(gateway, parameters(await paymentId()));
  time.advance(5 * 60_000 + 1);
  const late = await post(gateway, '/psu/login', login, LOGIN);
  assert.deepEqual(redirectQuery(late), {
    error: 'access_denied',
    error_description: 'the authorization page expired',
    state: 'st-1',
  });
});

test('dynamic linking: a payment changed after the consent page fails approval', async () => {
  const id = await paymentId();
  const consent = await post(gateway, '/psu/login', await openAuthorize(gateway, parameters(id)), LOGIN);
  await gateway.store.db.execute(
    sql`UPDATE payments SET amount_minor = amount_minor + 100000 WHERE payment_id = ${id}`,
  );
  const approved = await post(gateway, '/psu/consent', consent, { decision: 'approve' });
  assert.deepEqual(redirectQuery(approved), {
    error: 'access_denied',
    error_description: 'the payment changed after the PSU saw it',
    state: 'st-1',
  });
});

test('another PSU cannot approve a payment from an account it does not hold', async () => {
  const login = await openAuthorize(gateway, parameters(await paymentId()));
  const other = await post(gateway, '/psu/login', login, {
    psu_id: '198112289874',
    password: TEST_PSU_PASSWORD,
  });
  assert.deepEqual(redirectQuery(other), {
    error: 'access_denied',
    error_description: 'the PSU does not hold the debtor account',
    state: 'st-1',
  });
});

test('live codes live 60 s', async () => {
  const id = await paymentId();
  const consent = await post(gateway, '/psu/login', await openAuthorize(gateway, parameters(id)), LOGIN);
  const code = redirectQuery(await post(gateway, '/psu/consent', consent, { decision: 'approve' })).code!;
  time.advance(60_001);
  const late = await gateway.client.exchangeCode(`PIS:${id}`, code);
  assert.deepEqual(
    [late.status, late.body],
    [400, { error: 'invalid_grant', error_description: 'the code has expired' }],
  );
});

test('a corporate payment is approved only by the corporate PSU', async () => {
  const initiated = await gateway.client.initiate(token, {
    path: `/psd2/se/v2/payments/corporate/single/${PRODUCT}`,
    body: otherBank({ debtorAccount: { value: '6153300000014', accountType: 'BBAN' } }),
    headers: { 'PSU-Corporate-ID': '5566778899', 'PSU-Corporate-ID-Type': 'BANK' },
  });
  assert.equal(initiated.status, 200, JSON.stringify(initiated.body));
  const id = initiated.body.paymentId;
  const private_ = await post(gateway, '/psu/login', await openAuthorize(gateway, parameters(id)), LOGIN);
  assert.deepEqual(redirectQuery(private_), {
    error: 'access_denied',
    error_description: 'the PSU does not hold the debtor account',
    state: 'st-1',
  });
  const corporate = await post(gateway, '/psu/login', await openAuthorize(gateway, parameters(id)), {
    psu_id: '197001011234',
    password: TEST_PSU_PASSWORD,
  });
  assert.match(corporate.html, /Approve this payment\?/);
  assert.match(corporate.html, /data-field="debtor-account">SE0560000000000300000014</);
});
