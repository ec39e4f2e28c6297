// The BankID relying-party adapter against the stand-in RP API (test/stand-ins/bankid-rp.ts), over real
// mutual TLS on loopback: the sign order it asks for, the animated QR code, collect's states, cancel,
// retries within their bounds, and the certificates both sides insist on.
import assert from 'node:assert/strict';
import { createHmac, randomInt } from 'node:crypto';
import { after, before, test } from 'node:test';
import { bankIdProvider } from '../../src/adapters/bankid/bankid-provider.ts';
import { encodeHandle } from '../../src/adapters/bankid/order-handle.ts';
import type { OrderState } from '../../src/domain/eid.ts';
import type { EidProvider } from '../../src/ports/eid-provider.ts';
import { tlsRequest } from '../helpers/tls.ts';
import { type BankIdRp, startBankIdRp } from '../stand-ins/bankid-rp.ts';

let rp: BankIdRp;
let now = Date.parse('2025-03-03T10:00:00Z');
const clock = () => new Date(now);
/** Short bounds, so that giving up takes well under a second. */
const RETRY = { attempts: 3, timeoutMs: 300, backoffMs: 10, totalMs: 2_000 };
let eid: EidProvider;

before(async () => {
  rp = await startBankIdRp();
  eid = provider();
});
after(() => rp.close());

function provider(overrides: Partial<Parameters<typeof bankIdProvider>[0]> = {}): EidProvider {
  return bankIdProvider({ url: rp.url, ...rp.client, ca: rp.serverCa, clock, retry: RETRY, ...overrides });
}

/** A personal number of its own for each order, as one PSU has one order at a time. */
const personalNumber = () => `19${String(randomInt(10 ** 9, 10 ** 10))}`;

function start(pnr = personalNumber(), visibleText = 'Pay 125.50 SEK to Sven Svensson (50001234501)') {
  return eid.start({ personalNumber: pnr, endUserIp: '192.0.2.10', visibleText }, clock());
}

/** The requests of a path since a point in the stand-in's log. */
const requestsOf = (path: string, since: number) => rp.requests.slice(since).filter((r) => r.path === path);

const hmac = (secret: string, seconds: number) =>
  createHmac('sha256', secret).update(String(seconds)).digest('hex');

test('start: a sign order bound to the PSU, showing the text; the animated QR code from its token and secret', async () => {
  const pnr = personalNumber();
  const since = rp.requests.length;
  const order = await start(pnr, 'Pay 10.00 SEK to *Bank* of \\Fraud\nreally');
  assert.deepEqual(requestsOf('/sign', since), [
    {
      path: '/sign',
      body: {
        endUserIp: '192.0.2.10',
        requirement: { personalNumber: pnr },
        userVisibleData: Buffer.from('Pay 10.00 SEK to \\*Bank\\* of \\\\Fraud really').toString('base64'),
        userVisibleDataFormat: 'simpleMarkdownV1',
      },
    },
  ]);
  const placed = rp.orderOf(pnr)!;
  assert.equal(order.autoStartToken, placed.autoStartToken);
  assert.equal(order.qrStartToken, placed.qrStartToken);
  assert.equal(order.qrCode, `bankid.${placed.qrStartToken}.0.${hmac(placed.qrStartSecret, 0)}`);

  now += 3_400;
  const collected = await eid.collect(order.orderRef, clock());
  assert.equal(collected.qrCode, `bankid.${placed.qrStartToken}.3.${hmac(placed.qrStartSecret, 3)}`);
  now += 1_000;
  const later = await eid.collect(order.orderRef, clock());
  assert.equal(later.qrCode, `bankid.${placed.qrStartToken}.4.${hmac(placed.qrStartSecret, 4)}`);
  assert.deepEqual(requestsOf('/collect', since), [
    { path: '/collect', body: { orderRef: placed.orderRef } },
    { path: '/collect', body: { orderRef: placed.orderRef } },
  ]);
});

test('collect: pending hints, then complete with the personal number that signed', async () => {
  const pnr = personalNumber();
  rp.script(pnr, { pendingCollects: 2, pendingHint: 'started', outcome: { signedBy: pnr } });
  const order = await start(pnr);
  const states: OrderState[] = [];
  for (let i = 0; i < 3; i++) states.push((await eid.collect(order.orderRef, clock())).state);
  assert.deepEqual(states, [
    { status: 'pending', hintCode: 'outstandingTransaction' },
    { status: 'pending', hintCode: 'started' },
    { status: 'complete', personalNumber: pnr },
  ]);
});

test('collect maps every hint code to the states the domain knows', async () => {
  const cases: [Parameters<BankIdRp['script']>[1], OrderState][] = [
    [
      { pendingCollects: 2, pendingHint: 'noClient', outcome: { failed: 'x' } },
      { status: 'pending', hintCode: 'noClient' },
    ],
    [
      { pendingCollects: 2, pendingHint: 'userSign', outcome: { failed: 'x' } },
      { status: 'pending', hintCode: 'userSign' },
    ],
    [
      { pendingCollects: 2, pendingHint: 'userMrtd', outcome: { failed: 'x' } },
      { status: 'pending', hintCode: 'started' },
    ],
    [
      { pendingCollects: 2, pendingHint: 'userCallConfirm', outcome: { failed: 'x' } },
      { status: 'pending', hintCode: 'started' },
    ],
    [
      { pendingCollects: 1, outcome: { failed: 'userCancel' } },
      { status: 'failed', hintCode: 'userCancel' },
    ],
    [
      { pendingCollects: 1, outcome: { failed: 'expiredTransaction' } },
      { status: 'failed', hintCode: 'expiredTransaction' },
    ],
    [
      { pendingCollects: 1, outcome: { failed: 'startFailed' } },
      { status: 'failed', hintCode: 'startFailed' },
    ],
    [
      { pendingCollects: 1, outcome: { failed: 'certificateErr' } },
      { status: 'failed', hintCode: 'certificateErr' },
    ],
    // No such hint in the domain: the failure the PSU can only start over from (mbid_error).
    [
      { pendingCollects: 1, outcome: { failed: 'cancelled' } },
      { status: 'failed', hintCode: 'certificateErr' },
    ],
    [
      { pendingCollects: 1, outcome: { failed: 'transactionRiskBlocked' } },
      { status: 'failed', hintCode: 'certificateErr' },
    ],
    [
      { pendingCollects: 1, outcome: { failed: 'aHintOfTomorrow' } },
      { status: 'failed', hintCode: 'certificateErr' },
    ],
  ];
  for (const [script, expected] of cases) {
    const pnr = personalNumber();
    rp.script(pnr, script);
    const order = await start(pnr);
    await eid.collect(order.orderRef, clock());
    assert.deepEqual((await eid.collect(order.orderRef, clock())).state, expected, JSON.stringify(script));
  }
});

test('cancel: POST /cancel ends the order; cancelling an order that has ended is no error', async () => {
  const pnr = personalNumber();
  const order = await start(pnr);
  const { orderRef } = rp.orderOf(pnr)!;
  const since = rp.requests.length;
  await eid.cancel(order.orderRef, clock());
  assert.equal(rp.orders.has(orderRef), false);
  await eid.cancel(order.orderRef, clock());
  assert.deepEqual(requestsOf('/cancel', since), [
    { path: '/cancel', body: { orderRef } },
    { path: '/cancel', body: { orderRef } },
  ]);
});

test('alreadyInProgress: the provider says so; the order in progress has ended (cancelled)', async () => {
  const pnr = personalNumber();
  const first = await start(pnr);
  await assert.rejects(start(pnr), { eidFailure: 'alreadyInProgress' });
  assert.deepEqual((await eid.collect(first.orderRef, clock())).state, {
    status: 'failed',
    hintCode: 'certificateErr',
  });
});

test('maintenance, a bad gateway, a dropped connection, no answer in time: tried again with the same request', async () => {
  for (const fault of ['maintenance', 'badGateway', 'reset', 'stall'] as const) {
    const pnr = personalNumber();
    const order = await start(pnr);
    const since = rp.requests.length;
    rp.failNext('/collect', 2, fault);
    assert.deepEqual((await eid.collect(order.orderRef, clock())).state, {
      status: 'pending',
      hintCode: 'outstandingTransaction',
    });
    const { orderRef } = rp.orderOf(pnr)!;
    assert.deepEqual(
      requestsOf('/collect', since),
      Array(3).fill({ path: '/collect', body: { orderRef } }),
      fault,
    );
  }
  const since = rp.requests.length;
  rp.failNext('/sign', 1, 'maintenance');
  const pnr = personalNumber();
  await start(pnr);
  assert.equal(requestsOf('/sign', since).length, 2);
  assert.deepEqual(requestsOf('/sign', since)[0], requestsOf('/sign', since)[1]);
  assert.equal(rp.orderOf(pnr)?.status, 'pending');
});

test('after the bound of attempts, or of total time: unavailable', async () => {
  const order = await start();
  let since = rp.requests.length;
  rp.failNext('/collect', 5, 'maintenance');
  await assert.rejects(eid.collect(order.orderRef, clock()), { eidFailure: 'unavailable' });
  assert.equal(requestsOf('/collect', since).length, 3);
  rp.clearFaults();
  await eid.collect(order.orderRef, clock());

  const patient = provider({ retry: { attempts: 10, timeoutMs: 250, backoffMs: 10, totalMs: 600 } });
  since = rp.requests.length;
  rp.failNext('/collect', 10, 'stall');
  const started = performance.now();
  await assert.rejects(patient.collect(order.orderRef, clock()), { eidFailure: 'unavailable' });
  const took = performance.now() - started;
  assert.ok(took >= 500 && took < 1_000, `gave up after ${took} ms`);
  assert.ok(requestsOf('/collect', since).length <= 3, `${requestsOf('/collect', since).length} collects`);
  rp.clearFaults();
});

test('internalError and an answer lost after the order was made: unavailable, not retried into a second order', async () => {
  let since = rp.requests.length;
  rp.failNext('/sign', 1, 'internalError');
  await assert.rejects(start(), { eidFailure: 'unavailable' });
  assert.equal(
    requestsOf('/sign', since).length,
    1,
    'the contract: do not retry internalError automatically',
  );

  // The first attempt made the order and its answer was lost: the retry meets it (alreadyInProgress),
  // and the service ends it; the PSU has no order, and the TPP may start again.
  const pnr = personalNumber();
  since = rp.requests.length;
  rp.failNext('/sign', 1, 'lostAnswer');
  await assert.rejects(start(pnr), { eidFailure: 'unavailable' });
  assert.equal(requestsOf('/sign', since).length, 2);
  assert.deepEqual([rp.orderOf(pnr)?.status, rp.orderOf(pnr)?.hintCode], ['failed', 'cancelled']);
});

test('invalidParameters is our bug: it fails loudly, not as a passing unavailability', async () => {
  const stranger = encodeHandle({
    orderRef: 'no-such-order',
    qrStartToken: 't',
    qrStartSecret: 's',
    startedAt: now,
  });
  await assert.rejects(eid.collect(stranger, clock()), (error: Error & { eidFailure?: string }) => {
    assert.equal(error.eidFailure, undefined);
    assert.equal(error.message, 'the e-ID service refused /collect: 400 invalidParameters (No such order)');
    return true;
  });
  await assert.rejects(eid.collect('5f0c6f1e-6f1b-4f43-9a57-1a4b6f0b9a10', clock()), {
    message: 'the e-ID order reference is not one of the BankID provider',
  });
});

test('mutual TLS: no client certificate, or one from another CA, is refused; a server from another CA too', async () => {
  const body = JSON.stringify({ orderRef: 'x' });
  const headers = { 'content-type': 'application/json' };
  await assert.rejects(tlsRequest(`${rp.url}/collect`, { method: 'POST', ca: rp.serverCa, headers, body }));
  const stranger = { certificatePem: rp.strangerClient.cert, keyPem: rp.strangerClient.key };
  await assert.rejects(
    tlsRequest(`${rp.url}/collect`, { method: 'POST', ca: rp.serverCa, client: stranger, headers, body }),
  );

  const since = rp.requests.length;
  // Under TLS 1.3 the server checks the client's certificate after the handshake: the client learns
  // only that the server hung up, which it cannot tell from a passing failure.
  const refused = provider({ ...rp.strangerClient });
  await assert.rejects(
    refused.start({ personalNumber: personalNumber(), endUserIp: '192.0.2.1', visibleText: 'x' }, clock()),
    {
      eidFailure: 'unavailable',
      message: 'the e-ID service did not answer /sign after 3 attempts: socket hang up',
    },
  );
  const distrustful = provider({ ca: rp.strangerClient.cert });
  await assert.rejects(
    distrustful.start(
      { personalNumber: personalNumber(), endUserIp: '192.0.2.1', visibleText: 'x' },
      clock(),
    ),
    (error: Error & { code?: string; eidFailure?: string }) => {
      assert.equal(error.eidFailure, undefined, 'a certificate problem is no passing unavailability');
      assert.match(String(error.code), /CERT|VERIFY|SIGNATURE|ISSUER/);
      return true;
    },
  );
  assert.equal(rp.requests.length, since, 'no request reached the API');
});

test('the stand-in checks requests as the v6 contract does', async () => {
  const client = { certificatePem: rp.client.cert, keyPem: rp.client.key };
  const post = (path: string, json: unknown, contentType = 'application/json') =>
    tlsRequest(`${rp.url}${path}`, {
      method: 'POST',
      ca: rp.serverCa,
      client,
      headers: { 'content-type': contentType },
      body: JSON.stringify(json),
    });
  const valid = { endUserIp: '192.0.2.1', userVisibleData: Buffer.from('Pay').toString('base64') };
  const refusal = (status: number, errorCode: string, details: string) => ({
    status,
    body: { errorCode, details },
  });
  assert.deepEqual(
    await post('/sign', { ...valid, personalNumber: '191212121212' }),
    refusal(400, 'invalidParameters', 'Unknown parameter: personalNumber'),
  );
  assert.deepEqual(
    await post('/sign', { userVisibleData: valid.userVisibleData }),
    refusal(400, 'invalidParameters', 'Invalid endUserIp'),
  );
  assert.deepEqual(
    await post('/sign', { endUserIp: '192.0.2.1' }),
    refusal(400, 'invalidParameters', 'Invalid userVisibleData'),
  );
  assert.deepEqual(
    await post('/sign', { ...valid, userVisibleData: 'not base64!' }),
    refusal(400, 'invalidParameters', 'Invalid userVisibleData'),
  );
  assert.deepEqual(
    await post('/sign', { ...valid, userVisibleDataFormat: 'html' }),
    refusal(400, 'invalidParameters', 'Invalid userVisibleDataFormat'),
  );
  assert.deepEqual(
    await post('/sign', { ...valid, requirement: { personalNumber: '1212121212' } }),
    refusal(400, 'invalidParameters', 'Invalid requirement.personalNumber'),
  );
  assert.deepEqual(
    await post('/sign', valid, 'application/json; charset=utf-8'),
    refusal(415, 'unsupportedMediaType', 'Content-Type must be application/json'),
  );
  assert.deepEqual(
    await post('/collect', { orderRef: 'unknown' }),
    refusal(400, 'invalidParameters', 'No such order'),
  );
  assert.deepEqual(await post('/status', {}), refusal(404, 'notFound', 'No such endpoint'));
  const started = await post('/sign', valid);
  assert.equal(started.status, 200);
  assert.deepEqual(Object.keys(started.body as object), [
    'orderRef',
    'autoStartToken',
    'qrStartToken',
    'qrStartSecret',
  ]);
});
