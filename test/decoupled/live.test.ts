// The decoupled flow in live mode against the built-in e-ID simulator: the PSU's app (driven here
// through the simulator's app, as the /psu/eid page drives it) approves or declines; the TPP polls.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { simulatedEidApp } from '../../src/adapters/eid-simulator.ts';
import type { SimulatedEidApp } from '../../src/services/shared/simulated-eid-app.ts';
import { findOrder, findPendingOrders } from '../../src/store/decoupled-repository.ts';
import { auditRecordsSince, lastAuditSeq } from '../helpers/audit.ts';
import { type InitAnswer, initDecoupled, postLink, UNKNOWN_SESSION } from '../helpers/decoupled.ts';
import { type Gateway, manualClock, startGateway } from '../helpers/gateway.ts';
import { statusAndBody } from '../helpers/http.ts';
import { domestic } from '../helpers/payments.ts';

const time = manualClock();
let gateway: Gateway;
let token: string;
/** The PSU's pretend e-ID app of the simulator on the gateway's database. */
let eidApp: SimulatedEidApp;
before(async () => {
  gateway = await startGateway({ clock: time.clock, config: { mode: 'live' } });
  token = await gateway.client.clientCredentialsToken();
  eidApp = simulatedEidApp(gateway.store.db);
});
after(() => gateway.close());

const TOLVAN = '191212121212';

async function startSession(sameDevice = true): Promise<{ paymentId: string; init: InitAnswer }> {
  const initiated = await gateway.client.initiate(token, {
    path: '/psd2/se/v2/payments/private/single/other-bank-domestic-credit-transfer',
    body: {
      ...domestic(),
      creditorAccount: { value: '50001234501', accountType: 'BBAN' },
      creditor: { name: 'Sven Svensson' },
      remittanceInformationUnstructured: 'Faktura 12',
    },
  });
  const paymentId = initiated.body.paymentId;
  const answer = await initDecoupled(gateway, {
    client_id: gateway.sandboxApp.clientId,
    scope: `PIS:${paymentId}`,
    psu_client_ip: '192.0.2.10',
    bisa_same_device: sameDevice,
  });
  assert.equal(answer.status, 200, JSON.stringify(answer.body));
  return { paymentId, init: answer.body as InitAnswer };
}

/** The order the PSU sees in the e-ID app, by personal number. */
async function pendingOrder() {
  const orders = await findPendingOrders(gateway.store.db, TOLVAN);
  assert.ok(orders.length > 0, 'an e-ID order was made');
  return orders.at(-1)!;
}

/**
 * The audit trail's records of the session's end since `since` (issue 39): each written by the call
 * that ended it, naming the PSU, the app and that call's address; its correlation id is the request's.
 */
async function endRecords(since: string, paymentId: string, outcome: 'denied' | 'cancelled', reason: string) {
  const records = await auditRecordsSince(gateway, since);
  const ends = records.filter((record) => record.event.startsWith('authorization.'));
  assert.ok(
    ends.every((record) => record.correlationId !== null),
    "each record has the ending call's correlation id",
  );
  assert.deepEqual(
    ends.map(({ correlationId: _, ...record }) => record),
    [
      {
        event: `authorization.${outcome}`,
        outcome,
        resource: `PIS:${paymentId}`,
        tppId: null,
        appId: gateway.sandboxApp.clientId,
        certificate: null,
        psuId: TOLVAN,
        address: '127.0.0.1',
        detail: { reason },
      },
    ],
  );
}

function poll(init: InitAnswer) {
  time.advance(2000);
  return postLink(gateway, init._links.token.href);
}

test('IN_PROGRESS until the PSU approves in the app, then COMPLETE with a 900 s token', async () => {
  const { paymentId, init } = await startSession();
  assert.deepEqual(statusAndBody(await poll(init)), {
    status: 200,
    body: { result: 'IN_PROGRESS', sleep_time: 2000 },
  });
  const order = await pendingOrder();
  assert.equal(order.visibleText, 'Pay 125.50 SEK to Sven Svensson (50001234501)');
  assert.equal(order.autoStartToken, init.auto_start_token);
  assert.equal(await eidApp.open(order.orderRef, time.clock()), true);
  assert.deepEqual(statusAndBody(await poll(init)), {
    status: 200,
    body: { result: 'IN_PROGRESS', sleep_time: 2000 },
  });
  assert.equal(await eidApp.approve(order.orderRef, time.clock()), true);
  const complete = await poll(init);
  const body = complete.body as { access_token: string };
  assert.deepEqual(statusAndBody(complete), {
    status: 200,
    body: { result: 'COMPLETE', access_token: body.access_token, token_type: 'Bearer', expires_in: 900 },
  });
  const executed = await gateway.client.execute(
    'other-bank-domestic-credit-transfer',
    paymentId,
    body.access_token,
  );
  assert.deepEqual([executed.status, executed.body], [200, { paymentId, transactionStatus: 'ACSC' }]);
});

test('live PSU tokens expire after 900 s', async () => {
  const { paymentId, init } = await startSession();
  const order = await pendingOrder();
  await eidApp.open(order.orderRef, time.clock());
  await eidApp.approve(order.orderRef, time.clock());
  const psuToken = ((await poll(init)).body as { access_token: string }).access_token;
  time.advance(900_000);
  const executed = await gateway.client.execute('other-bank-domestic-credit-transfer', paymentId, psuToken);
  assert.equal(executed.status, 401);
  assert.deepEqual((executed.body as unknown as { tppMessages: unknown[] }).tppMessages, [
    { category: 'ERROR', code: 'TOKEN_EXPIRED', text: 'The access token has expired' },
  ]);
});

test('the PSU declines: USER_CANCEL, and the session is over', async () => {
  const { init, paymentId } = await startSession();
  const since = await lastAuditSeq(gateway);
  const order = await pendingOrder();
  await eidApp.open(order.orderRef, time.clock());
  await eidApp.decline(order.orderRef, time.clock());
  assert.deepEqual(statusAndBody(await poll(init)), { status: 200, body: { result: 'USER_CANCEL' } });
  assert.deepEqual(statusAndBody(await poll(init)), {
    status: 400,
    body: { error: 'invalid_request', error_description: 'the session has ended' },
  });
  await endRecords(since, paymentId, 'cancelled', 'the PSU cancelled in the e-ID app');
});

test('other device: a fresh QR code with every IN_PROGRESS', async () => {
  const { init } = await startSession(false);
  const first = (await poll(init)).body as { qr_code: string };
  const second = (await poll(init)).body as { qr_code: string };
  assert.match(first.qr_code, /^bankid\.[0-9a-f-]{36}\.2\.[0-9a-f]{64}$/);
  assert.match(second.qr_code, /^bankid\.[0-9a-f-]{36}\.4\.[0-9a-f]{64}$/);
});

test('not started within 30 s: intent_expired', async () => {
  const { init, paymentId } = await startSession();
  const since = await lastAuditSeq(gateway);
  time.advance(29_000);
  assert.deepEqual(statusAndBody(await poll(init)), {
    status: 400,
    body: { error: 'intent_expired', error_description: 'the PSU did not start the e-ID app in time' },
  });
  await endRecords(since, paymentId, 'cancelled', 'intent_expired');
});

test('started but not finished in 3 minutes: intent_expired', async () => {
  const { init } = await startSession();
  await eidApp.open((await pendingOrder()).orderRef, time.clock());
  time.advance(178_000);
  assert.deepEqual(statusAndBody(await poll(init)), {
    status: 400,
    body: {
      error: 'intent_expired',
      error_description: 'the PSU did not complete the identification in time',
    },
  });
});

const MAX_POLLING = {
  status: 400,
  body: {
    error: 'mbid_max_polling',
    error_description: 'polled too often: wait sleep_time (2000 ms) between polls',
  },
};

test('polling sooner than sleep_time too often: mbid_max_polling', async () => {
  const { init } = await startSession();
  const { orderRef } = await pendingOrder();
  // The first poll, sooner than sleep_time after the start, is early too: five are tolerated.
  for (let early = 0; early < 5; early++) {
    const answer = await postLink(gateway, init._links.token.href);
    assert.deepEqual(statusAndBody(answer), {
      status: 200,
      body: { result: 'IN_PROGRESS', sleep_time: 2000 },
    });
  }
  assert.deepEqual(statusAndBody(await postLink(gateway, init._links.token.href)), MAX_POLLING);
  const order = await findOrder(gateway.store.db, orderRef);
  assert.deepEqual(
    [order?.status, order?.hintCode],
    ['failed', 'userCancel'],
    'the e-ID order was cancelled too',
  );
});

test('the first poll counts as early only when it comes sooner than sleep_time after the start', async () => {
  const inProgress = { status: 200, body: { result: 'IN_PROGRESS', sleep_time: 2000 } };
  const early = (await startSession()).init;
  time.advance(1999);
  assert.deepEqual(statusAndBody(await postLink(gateway, early._links.token.href)), inProgress);
  for (let poll = 0; poll < 4; poll++) {
    assert.deepEqual(statusAndBody(await postLink(gateway, early._links.token.href)), inProgress);
  }
  assert.deepEqual(statusAndBody(await postLink(gateway, early._links.token.href)), MAX_POLLING);

  const onTime = (await startSession()).init;
  time.advance(2000);
  assert.deepEqual(statusAndBody(await postLink(gateway, onTime._links.token.href)), inProgress);
  for (let poll = 0; poll < 5; poll++) {
    assert.deepEqual(statusAndBody(await postLink(gateway, onTime._links.token.href)), inProgress);
  }
  assert.deepEqual(statusAndBody(await postLink(gateway, onTime._links.token.href)), MAX_POLLING);
});

test('the TPP cancels: the order ends and polls are refused', async () => {
  const { init, paymentId } = await startSession();
  const since = await lastAuditSeq(gateway);
  const { orderRef } = await pendingOrder();
  assert.equal((await postLink(gateway, init._links.cancel.href)).status, 204);
  const order = await findOrder(gateway.store.db, orderRef);
  assert.deepEqual([order?.status, order?.hintCode], ['failed', 'userCancel']);
  assert.deepEqual(statusAndBody(await poll(init)), {
    status: 400,
    body: { error: 'invalid_request', error_description: 'the session has ended' },
  });
  await endRecords(since, paymentId, 'cancelled', 'cancelled by the TPP');
});

test("another app cannot cancel or poll the session: an unknown session's answer; the owner goes on", async () => {
  const { init } = await startSession();
  const { orderRef } = await pendingOrder();
  const other = { headers: { 'X-Gateway-Client-Id': (await gateway.addApp()).clientId } };
  const unknown = init._links.cancel.href.replace(/sessionId=[^&]+/, 'sessionId=nope');
  assert.deepEqual(statusAndBody(await postLink(gateway, unknown)), UNKNOWN_SESSION);
  assert.deepEqual(statusAndBody(await postLink(gateway, init._links.cancel.href, other)), UNKNOWN_SESSION);
  time.advance(2000);
  assert.deepEqual(statusAndBody(await postLink(gateway, init._links.token.href, other)), UNKNOWN_SESSION);
  assert.equal((await findOrder(gateway.store.db, orderRef))?.status, 'pending');
  // The session goes on for its owner, and the PSU signs.
  assert.deepEqual(statusAndBody(await postLink(gateway, init._links.token.href)), {
    status: 200,
    body: { result: 'IN_PROGRESS', sleep_time: 2000 },
  });
  await eidApp.open(orderRef, time.clock());
  await eidApp.approve(orderRef, time.clock());
  const complete = await poll(init);
  const token = (complete.body as { access_token: string }).access_token;
  assert.deepEqual(statusAndBody(complete), {
    status: 200,
    body: { result: 'COMPLETE', access_token: token, token_type: 'Bearer', expires_in: 900 },
  });
});

test('an identification by another person than the debtor account holder: mbid_error', async () => {
  const { init, paymentId } = await startSession();
  const since = await lastAuditSeq(gateway);
  const { orderRef } = await pendingOrder();
  // The e-ID reports a different personal number than the one the order was for.
  await gateway.store.db.execute(
    sql`UPDATE eid_orders SET personal_number = '198112289874' WHERE order_ref = ${orderRef}`,
  );
  await eidApp.open(orderRef, time.clock());
  await eidApp.approve(orderRef, time.clock());
  assert.deepEqual(statusAndBody(await poll(init)), {
    status: 400,
    body: { error: 'mbid_error', error_description: 'the identification was made by another person' },
  });
  await endRecords(since, paymentId, 'denied', 'the identification was made by another person');
});

test('live: initiation and execution need PSU-IP-Address', async () => {
  const path = '/psd2/se/v2/payments/private/single/handelsbanken-domestic-credit-transfer';
  const headers = { ...gateway.client.tppHeaders(token) };
  delete (headers as Record<string, string>)['PSU-IP-Address'];
  const missing = await gateway.client.request('POST', path, { headers, json: domestic() });
  assert.equal(missing.status, 400);
  assert.deepEqual((missing.body as { tppMessages: unknown[] }).tppMessages, [
    {
      category: 'ERROR',
      code: 'FORMAT_ERROR',
      path: 'PSU-IP-Address',
      text: 'header PSU-IP-Address is required',
    },
  ]);
  const bad = await gateway.client.request('POST', path, {
    headers: { ...headers, 'PSU-IP-Address': 'my laptop' },
    json: domestic(),
  });
  assert.deepEqual((bad.body as { tppMessages: unknown[] }).tppMessages, [
    {
      category: 'ERROR',
      code: 'FORMAT_ERROR',
      path: 'PSU-IP-Address',
      text: 'header PSU-IP-Address must be an IPv4 or IPv6 address',
    },
  ]);
  const status = await gateway.client.request('GET', `/psd2/v1/payments/x/y/status`, {
    headers: { ...headers, Country: 'SE' },
  });
  assert.equal(status.status, 404, 'status reads are not PSU-present: no PSU-IP-Address needed');
});
