// The decoupled flow of a live gateway whose e-ID is the BankID adapter, against the stand-in RP API
// over mutual TLS: the TPP starts, polls and gets the PSU token when the PSU has signed; a signature by
// someone else, a cancel in the app, an expired order, a second order for the PSU, a cancel by the TPP
// and an e-ID service that is away each end as the TPP can tell.
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { after, before, test } from 'node:test';
import { bankIdProvider } from '../../src/adapters/bankid/bankid-provider.ts';
import { type InitAnswer, initDecoupled, postLink } from '../helpers/decoupled.ts';
import { type Gateway, manualClock, startGateway } from '../helpers/gateway.ts';
import { call, statusAndBody } from '../helpers/http.ts';
import { domestic } from '../helpers/payments.ts';
import { type BankIdRp, startBankIdRp } from '../stand-ins/bankid-rp.ts';

const TOLVAN = '191212121212';
const AGDA = '198112289874';
/** A personal number the bank does not know. */
const STRANGER = '190001019999';
const time = manualClock();
let rp: BankIdRp;
let gateway: Gateway;
let token: string;

before(async () => {
  rp = await startBankIdRp();
  const eid = bankIdProvider({
    url: rp.url,
    ...rp.client,
    ca: rp.serverCa,
    clock: time.clock,
    retry: { attempts: 3, timeoutMs: 500, backoffMs: 10, totalMs: 2_000 },
  });
  gateway = await startGateway({ clock: time.clock, config: { mode: 'live' }, systems: { eid } });
  token = await gateway.client.clientCredentialsToken();
});
after(async () => {
  await gateway.close();
  await rp.close();
});

async function initiate(): Promise<string> {
  const initiated = await gateway.client.initiate(token, {
    path: '/psd2/se/v2/payments/private/single/other-bank-domestic-credit-transfer',
    body: {
      ...domestic(),
      creditorAccount: { value: '50001234501', accountType: 'BBAN' },
      creditor: { name: 'Sven Svensson' },
      remittanceInformationUnstructured: 'Faktura 12',
    },
  });
  return initiated.body.paymentId;
}

function initRequest(paymentId: string, sameDevice: boolean) {
  return {
    client_id: gateway.sandboxApp.clientId,
    scope: `PIS:${paymentId}`,
    psu_client_ip: '192.0.2.10',
    bisa_same_device: sameDevice,
  };
}

async function startSession(sameDevice = true) {
  const paymentId = await initiate();
  const answer = await initDecoupled(gateway, initRequest(paymentId, sameDevice));
  assert.equal(answer.status, 200, JSON.stringify(answer.body));
  return { paymentId, init: answer.body as InitAnswer };
}

function poll(init: InitAnswer) {
  time.advance(2000);
  return postLink(gateway, init._links.token.href);
}

const qrCode = (seconds: number) => {
  const { qrStartToken, qrStartSecret } = rp.orderOf(TOLVAN)!;
  const hmac = createHmac('sha256', qrStartSecret).update(String(seconds)).digest('hex');
  return `bankid.${qrStartToken}.${seconds}.${hmac}`;
};

const links = (init: InitAnswer) => ({
  token: { href: init._links.token.href, hints: { allow: ['POST'] } },
  cancel: { href: init._links.cancel.href, hints: { allow: ['POST'] } },
});

test('other device: the QR codes animate from the order start; COMPLETE when the PSU has signed, and the payment executes', async () => {
  rp.script(TOLVAN, { pendingCollects: 2, outcome: { signedBy: TOLVAN } });
  const since = rp.requests.length;
  const { paymentId, init } = await startSession(false);
  assert.deepEqual(init, { qr_code: qrCode(0), sleep_time: 2000, _links: links(init) });
  assert.match(init._links.token.href, /\/decoupled\/eid\/token\/2\.0\?sessionId=[\w-]+$/);
  assert.deepEqual(rp.requests.slice(since), [
    {
      path: '/sign',
      body: {
        endUserIp: '192.0.2.10',
        requirement: { personalNumber: TOLVAN },
        userVisibleData: Buffer.from('Pay 125.50 SEK to Sven Svensson (50001234501)').toString('base64'),
        userVisibleDataFormat: 'simpleMarkdownV1',
      },
    },
  ]);
  assert.deepEqual(statusAndBody(await poll(init)), {
    status: 200,
    body: { result: 'IN_PROGRESS', sleep_time: 2000, qr_code: qrCode(2) },
  });
  assert.deepEqual(statusAndBody(await poll(init)), {
    status: 200,
    body: { result: 'IN_PROGRESS', sleep_time: 2000, qr_code: qrCode(4) },
  });
  const complete = await poll(init);
  const { access_token } = complete.body as { access_token: string };
  assert.deepEqual(statusAndBody(complete), {
    status: 200,
    body: { result: 'COMPLETE', access_token, token_type: 'Bearer', expires_in: 900 },
  });
  const executed = await gateway.client.execute(
    'other-bank-domestic-credit-transfer',
    paymentId,
    access_token,
  );
  assert.deepEqual([executed.status, executed.body], [200, { paymentId, transactionStatus: 'ACSC' }]);
});

test('same device: the auto-start token is the order’s; signed by another personal number: no token, the session has failed', async () => {
  rp.script(TOLVAN, { pendingCollects: 0, outcome: { signedBy: '198112289874' } });
  const { init } = await startSession(true);
  assert.deepEqual(init, {
    auto_start_token: rp.orderOf(TOLVAN)!.autoStartToken,
    sleep_time: 2000,
    _links: links(init),
  });
  assert.deepEqual(statusAndBody(await poll(init)), {
    status: 400,
    body: { error: 'mbid_error', error_description: 'the identification was made by another person' },
  });
  assert.deepEqual(statusAndBody(await poll(init)), {
    status: 400,
    body: { error: 'invalid_request', error_description: 'the session has ended' },
  });
});

test('the PSU cancels in the app: USER_CANCEL', async () => {
  rp.script(TOLVAN, { pendingCollects: 1, outcome: { failed: 'userCancel' } });
  const { init } = await startSession();
  assert.deepEqual(statusAndBody(await poll(init)), {
    status: 200,
    body: { result: 'IN_PROGRESS', sleep_time: 2000 },
  });
  assert.deepEqual(statusAndBody(await poll(init)), { status: 200, body: { result: 'USER_CANCEL' } });
});

test('the order expires at the e-ID service: intent_expired', async () => {
  rp.script(TOLVAN, { pendingCollects: 1, outcome: { failed: 'expiredTransaction' } });
  const { init } = await startSession();
  await poll(init);
  assert.deepEqual(statusAndBody(await poll(init)), {
    status: 400,
    body: {
      error: 'intent_expired',
      error_description: 'the PSU did not complete the identification in time',
    },
  });
});

test('a second order for the PSU while one is in progress: both end, and each TPP is told', async () => {
  rp.script(TOLVAN, { pendingCollects: 100, outcome: { signedBy: TOLVAN } });
  const { init: first } = await startSession();
  const second = await initDecoupled(gateway, initRequest(await initiate(), true));
  assert.deepEqual(statusAndBody(second), {
    status: 400,
    body: {
      error: 'mbid_error',
      error_description:
        'the PSU already had an e-ID order in progress, which the e-ID service has now ended: start again',
    },
  });
  assert.deepEqual(statusAndBody(await poll(first)), {
    status: 400,
    body: {
      error: 'mbid_error',
      error_description: 'the e-ID provider could not complete the identification',
    },
  });
});

test('the TPP cancels: the order is cancelled at the e-ID service; later polls are refused', async () => {
  rp.script(TOLVAN, { pendingCollects: 100, outcome: { signedBy: TOLVAN } });
  const { init } = await startSession();
  const { orderRef } = rp.orderOf(TOLVAN)!;
  const since = rp.requests.length;
  assert.deepEqual(statusAndBody(await postLink(gateway, init._links.cancel.href)), {
    status: 204,
    body: '',
  });
  assert.deepEqual(rp.requests.slice(since), [{ path: '/cancel', body: { orderRef } }]);
  assert.deepEqual(statusAndBody(await poll(init)), {
    status: 400,
    body: { error: 'invalid_request', error_description: 'the session has ended' },
  });
});

test('the e-ID service is away: temporarily_unavailable with Retry-After; a poll meanwhile leaves the session going', async () => {
  rp.script(TOLVAN, { pendingCollects: 0, outcome: { signedBy: TOLVAN } });
  rp.failNext('/sign', 3, 'maintenance');
  const paymentId = await initiate();
  const refused = await initDecoupled(gateway, initRequest(paymentId, true));
  assert.deepEqual(
    [statusAndBody(refused), refused.headers['retry-after']],
    [
      {
        status: 503,
        body: {
          error: 'temporarily_unavailable',
          error_description: 'the e-ID service is unavailable: try again later',
        },
      },
      '5',
    ],
  );
  assert.equal(rp.orderOf(TOLVAN)?.status, 'failed', 'no new order was made');

  const { init } = await startSession();
  rp.failNext('/collect', 3, 'maintenance');
  const away = await poll(init);
  assert.deepEqual(
    [statusAndBody(away), away.headers['retry-after']],
    [
      {
        status: 503,
        body: {
          error: 'temporarily_unavailable',
          error_description:
            'the e-ID service is unavailable: the session goes on, poll again after sleep_time',
        },
      },
      '5',
    ],
  );
  const complete = await poll(init);
  assert.equal((complete.body as { result: string }).result, 'COMPLETE');
});

test('a consent anyone may approve: psu_id of a stranger and of a customer start alike; the stranger who signed gets no token', async () => {
  const ais = await gateway.client.clientCredentialsToken('AIS');
  async function start(psuId: string) {
    const consent = await call(gateway.app, 'POST', '/psd2/v1/consents', {
      headers: gateway.client.tppHeaders(ais),
      json: { access: 'ALL_ACCOUNTS' },
    });
    assert.equal(consent.status, 201, JSON.stringify(consent.body));
    rp.script(psuId, { pendingCollects: 0, outcome: { signedBy: psuId } });
    const since = rp.requests.length;
    const answer = await call(gateway.app, 'POST', '/decoupled/mbid/initAuthorization/1.0', {
      headers: { accept: 'application/json', host: 'gateway.test' },
      json: {
        client_id: gateway.sandboxApp.clientId,
        scope: `AIS:${(consent.body as { consentId: string }).consentId}`,
        psu_id: psuId,
        psu_id_type: '1',
        psu_client_ip: '192.0.2.10',
      },
    });
    // The e-ID order is for the personal number named, customer or not.
    assert.deepEqual(
      rp.requests
        .slice(since)
        .map(({ path, body }) => [path, (body as { requirement?: unknown }).requirement]),
      [['/sign', { personalNumber: psuId }]],
    );
    return answer;
  }
  const customer = await start(AGDA);
  const stranger = await start(STRANGER);
  // The same answer but for what is the session's own: its order's start token and its links.
  const own = (answer: typeof customer, psuId: string) => {
    const init = answer.body as InitAnswer;
    return {
      status: answer.status,
      body: { auto_start_token: rp.orderOf(psuId)!.autoStartToken, sleep_time: 2000, _links: links(init) },
    };
  };
  assert.deepEqual(statusAndBody(customer), own(customer, AGDA));
  assert.deepEqual(statusAndBody(stranger), own(stranger, STRANGER));
  assert.equal(customer.status, 200);
  assert.match(
    (stranger.body as InitAnswer)._links.token.href,
    /\/decoupled\/mbid\/token\/1\.0\?sessionId=[\w-]+$/,
  );
  // Each has signed with their own e-ID: the bank does not know the stranger, who gets no token.
  assert.deepEqual(statusAndBody(await poll(stranger.body as InitAnswer)), {
    status: 400,
    body: { error: 'mbid_error', error_description: 'the PSU cannot sign this with the e-ID' },
  });
  assert.deepEqual(statusAndBody(await poll(stranger.body as InitAnswer)), {
    status: 400,
    body: { error: 'invalid_request', error_description: 'the session has ended' },
  });
  const complete = await poll(customer.body as InitAnswer);
  const { access_token, refresh_token } = complete.body as { access_token: string; refresh_token: string };
  assert.deepEqual(statusAndBody(complete), {
    status: 200,
    body: { result: 'COMPLETE', access_token, token_type: 'Bearer', expires_in: 900, refresh_token },
  });
});
