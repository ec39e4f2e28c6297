// The Swedish short-term consent: created by the TPP, authorized with PIS:<consentId> (redirect or
// decoupled), then a few reads of the PSU's accounts with balances and cards within a short validity.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { TEST_PSU_PASSWORD } from '../../src/sandbox/seed.ts';
import { type InitAnswer, initDecoupled, postLink } from '../helpers/decoupled.ts';
import { type Gateway, manualClock, startGateway } from '../helpers/gateway.ts';
import { BAD_REQUEST, call, errorBody, FORBIDDEN, statusAndBody, UNAUTHORIZED } from '../helpers/http.ts';
import { openAuthorize, post, redirectQuery } from '../helpers/psu-pages.ts';

const CONSENTS = '/psd2/se/v2/payments/private/accounts/shorttermconsents';
const ACCOUNTS_PATH = '/psd2/se/v2/payments/private/accounts';

function create(gateway: Gateway, token: string, extra: Record<string, string> = {}) {
  return call(gateway.app, 'POST', CONSENTS, {
    headers: gateway.client.tppHeaders(token, extra),
    json: { access: 'ALL_ACCOUNTS' },
  });
}

function readAccounts(gateway: Gateway, token: string) {
  return call(gateway.app, 'GET', ACCOUNTS_PATH, { headers: gateway.client.tppHeaders(token) });
}

async function consentId(gateway: Gateway, token: string): Promise<string> {
  const answer = await create(gateway, token);
  assert.equal(answer.status, 201, JSON.stringify(answer.body));
  return (answer.body as { consentId: string }).consentId;
}

const TOLVAN_ACCOUNTS = {
  accounts: [
    {
      accountId: '3a2f8b10-5c1e-4f8e-9a41-0c1d2e3f4a01',
      iban: 'SE7160000000000123456789',
      bban: '6000123456789',
      clearingNumber: '6000',
      bic: 'HANDSESS',
      currency: 'SEK',
      accountType: 'CACC',
      name: 'Allkonto',
      ownerName: 'Tolvan Tolvansson',
      balances: [
        { amount: { content: '12500000.00', currency: 'SEK' }, balanceType: 'booked' },
        { amount: { content: '12500000.00', currency: 'SEK' }, balanceType: 'available' },
      ],
      cards: [{ maskedPan: '455677******1234', name: 'Allkort' }],
    },
    {
      accountId: '3a2f8b10-5c1e-4f8e-9a41-0c1d2e3f4a02',
      iban: 'SE9360000000000987654322',
      bban: '6000987654322',
      clearingNumber: '6000',
      bic: 'HANDSESS',
      currency: 'SEK',
      accountType: 'SVGS',
      name: 'Sparkonto',
      ownerName: 'Tolvan Tolvansson',
      balances: [
        { amount: { content: '12500000.00', currency: 'SEK' }, balanceType: 'booked' },
        { amount: { content: '12500000.00', currency: 'SEK' }, balanceType: 'available' },
      ],
      cards: [],
    },
  ],
};

describe('sandbox', () => {
  const time = manualClock();
  let gateway: Gateway;
  let token: string;
  before(async () => {
    gateway = await startGateway({ clock: time.clock });
    token = await gateway.client.clientCredentialsToken();
  });
  after(() => gateway.close());

  async function psuToken(id: string) {
    const scope = `PIS:${id}`;
    const code = (await gateway.client.authorize(scope, 'c')).get('code')!;
    return (await gateway.client.exchangeCode(scope, code)).body.access_token;
  }

  test('created as received, with both SCA methods', async () => {
    const answer = await create(gateway, token);
    const body = answer.body as { consentId: string; scaMethods: { scaMethodType: string }[] };
    assert.equal(answer.status, 201);
    assert.deepEqual(Object.keys(body).sort(), ['consentId', 'consentStatus', 'scaMethods']);
    assert.equal((answer.body as { consentStatus: string }).consentStatus, 'received');
    assert.deepEqual(
      body.scaMethods.map((method) => method.scaMethodType),
      ['REDIRECT', 'DECOUPLED'],
    );
  });

  test('authorized with PIS:<consentId>: four reads of accounts, balances and cards, then ACCESS_EXCEEDED', async () => {
    const psu = await psuToken(await consentId(gateway, token));
    for (let read = 1; read <= 4; read++) {
      assert.deepEqual(
        statusAndBody(await readAccounts(gateway, psu)),
        { status: 200, body: TOLVAN_ACCOUNTS },
        `read ${read}`,
      );
    }
    assert.deepEqual(statusAndBody(await readAccounts(gateway, psu)), {
      status: 429,
      body: errorBody(429, 'Too Many Requests', {
        code: 'ACCESS_EXCEEDED',
        text: 'The short-term consent allows 4 reads',
      }),
    });
  });

  test('valid for 20 minutes', async () => {
    const psu = await psuToken(await consentId(gateway, token));
    assert.equal((await readAccounts(gateway, psu)).status, 200);
    time.advance(20 * 60_000);
    const answer = await readAccounts(gateway, psu);
    assert.equal(answer.status, 401);
    assert.equal(
      (answer.body as { tppMessages: { code: string }[] }).tppMessages[0]!.code,
      'CONSENT_EXPIRED',
    );
  });

  test('decoupled, in the sandbox', async () => {
    const id = await consentId(gateway, token);
    const init = await initDecoupled(gateway, {
      client_id: gateway.sandboxApp.clientId,
      scope: `PIS:${id}`,
      psu_client_ip: '192.0.2.1',
      bisa_same_device: true,
    });
    const polled = await postLink(gateway, (init.body as InitAnswer)._links.token.href);
    const psu = (polled.body as { access_token: string }).access_token;
    assert.deepEqual(statusAndBody(await readAccounts(gateway, psu)), { status: 200, body: TOLVAN_ACCOUNTS });
  });

  test('PSU-ID: a corporate customer is refused at once (400), an individual binds the consent', async () => {
    assert.deepEqual(
      statusAndBody(await create(gateway, token, { 'PSU-ID': '197001011234' })),
      BAD_REQUEST({
        code: 'FORMAT_ERROR',
        path: 'PSU-ID',
        text: 'PSU-ID names a corporate customer: short-term consents are for individual customers only',
      }),
    );
    // Agda Andersson named: the sandbox approves as her, and the reads show her accounts, not Tolvan's.
    const answer = await create(gateway, token, { 'PSU-ID': '198112289874' });
    assert.equal(answer.status, 201, JSON.stringify(answer.body));
    const psu = await psuToken((answer.body as { consentId: string }).consentId);
    const read = await readAccounts(gateway, psu);
    assert.equal(read.status, 200);
    assert.deepEqual(
      [...new Set((read.body as typeof TOLVAN_ACCOUNTS).accounts.map((account) => account.ownerName))],
      ['Agda Andersson'],
    );
  });

  test('refusals', async () => {
    assert.deepEqual(
      statusAndBody(
        await create(gateway, token, { 'PSU-Corporate-ID': '5566778899', 'PSU-Corporate-ID-Type': 'BANK' }),
      ),
      FORBIDDEN({ code: 'PRODUCT_INVALID', text: 'short-term consents are for individual customers only' }),
    );
    const bad = await call(gateway.app, 'POST', CONSENTS, {
      headers: gateway.client.tppHeaders(token),
      json: { access: 'SOME_ACCOUNTS' },
    });
    assert.equal(bad.status, 400);
    assert.deepEqual(
      statusAndBody(await readAccounts(gateway, token)),
      UNAUTHORIZED({
        code: 'TOKEN_INVALID',
        text: 'This call needs the PSU access token of a short-term consent',
      }),
    );
    const id = await consentId(gateway, token);
    await psuToken(id);
    const again = await gateway.client.authorize(`PIS:${id}`, 'c');
    assert.deepEqual(Object.fromEntries(again), {
      error: 'invalid_scope',
      error_description: 'the consent is not awaiting authorization',
      state: 'c',
    });
  });
});

describe('live', () => {
  let gateway: Gateway;
  let token: string;
  before(async () => {
    gateway = await startGateway({ config: { mode: 'live' } });
    token = await gateway.client.clientCredentialsToken();
  });
  after(() => gateway.close());

  function parameters(id: string) {
    return {
      response_type: 'code',
      scope: `PIS:${id}`,
      client_id: gateway.sandboxApp.clientId,
      state: 'lc',
      redirect_uri: gateway.sandboxApp.redirectUri,
    };
  }

  test('the PSU who logs in shares their own accounts', async () => {
    const id = await consentId(gateway, token);
    const consent = await post(gateway, '/psu/login', await openAuthorize(gateway, parameters(id)), {
      psu_id: '198112289874',
      password: TEST_PSU_PASSWORD,
    });
    assert.match(consent.html, /Share your accounts\?/);
    assert.match(consent.html, /up to 4 reads within 20 minutes/);
    const code = redirectQuery(await post(gateway, '/psu/consent', consent, { decision: 'approve' })).code!;
    const psu = (await gateway.client.exchangeCode(`PIS:${id}`, code)).body.access_token;
    const answer = await readAccounts(gateway, psu);
    assert.equal(answer.status, 200);
    assert.deepEqual(
      (answer.body as { accounts: { ownerName: string }[] }).accounts.map((account) => account.ownerName),
      ['Agda Andersson'],
    );
  });

  test('a corporate cannot approve; live decoupled needs the redirect flow', async () => {
    const id = await consentId(gateway, token);
    const denied = await post(gateway, '/psu/login', await openAuthorize(gateway, parameters(id)), {
      psu_id: '197001011234',
      password: TEST_PSU_PASSWORD,
    });
    assert.deepEqual(redirectQuery(denied), {
      error: 'access_denied',
      error_description: 'short-term consents are for individual customers only',
      state: 'lc',
    });
    const other = await consentId(gateway, token);
    const init = await initDecoupled(gateway, {
      client_id: gateway.sandboxApp.clientId,
      scope: `PIS:${other}`,
      psu_client_ip: '192.0.2.1',
      bisa_same_device: true,
    });
    assert.deepEqual(statusAndBody(init), {
      status: 400,
      body: {
        error: 'invalid_request',
        error_description: 'a short-term consent is authorized through the redirect flow in live mode',
      },
    });
  });
});
