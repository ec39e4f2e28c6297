// The e-ID simulator's app (/psu/eid) over HTTP: whoever holds an order's QR code or auto-start token
// can open it, but only the PSU the order is for, identified by personal number and password, signs or
// cancels it; every page says it is a simulator; the forms carry a CSRF token bound to a cookie.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { TEST_PSU_PASSWORD } from '../../src/sandbox/seed.ts';
import { findOrder } from '../../src/store/decoupled-repository.ts';
import {
  formField,
  type InitAnswer,
  identifyInEidApp,
  initDecoupled,
  openInEidApp,
  pageText,
  postEidForm,
  postLink,
  signInEidApp,
  visitEidApp,
} from '../helpers/decoupled.ts';
import { type Gateway, manualClock, startGateway } from '../helpers/gateway.ts';
import { type Answer, call, statusAndBody } from '../helpers/http.ts';
import { ACCOUNTS, otherBank } from '../helpers/payments.ts';

const PRODUCT = 'other-bank-domestic-credit-transfer';
const TOLVAN = { psu_id: '191212121212', password: TEST_PSU_PASSWORD };
const AGDA = { psu_id: '198112289874', password: TEST_PSU_PASSWORD };

const LIVE_NOTICE =
  "e-ID simulator, not the bank's e-ID: it identifies you by personal number and password alone. This gateway runs it for trying live without the bank's e-ID only.";
const SANDBOX_NOTICE =
  'Sandbox e-ID simulator, not a real e-ID: sign as a test PSU with its personal number and the test password (see the sandbox page). No real money moves.';
const WRONG = 'The personal number or the password is wrong. Nothing was signed.';
const LOCKED = 'Too many failed attempts: your login is locked for a while. Nothing was signed.';
const NOT_YOURS = 'This identification is for another person: you cannot sign or cancel it.';

/** The page that asks the PSU to identify, with the error it shows, if any: nothing of the order. */
const identifyPage = (notice: string, error?: string) =>
  [
    notice,
    'Identify',
    'Identify with your personal number and password to see what you are asked to sign.',
    ...(error === undefined ? [] : [error]),
  ].join(' ') + ' Personal number Password Identify';
const messagePage = (notice: string, title: string, text: string) => `${notice} ${title} ${text}`;
const page = (answer: Answer) => ({ status: answer.status, text: pageText(String(answer.body)) });

async function startSession(
  gateway: Gateway,
  token: string,
  options: { sameDevice?: boolean; debtor?: string } = {},
): Promise<{ paymentId: string; init: InitAnswer }> {
  const initiated = await gateway.client.initiate(token, {
    path: `/psd2/se/v2/payments/private/single/${PRODUCT}`,
    body: otherBank(
      options.debtor === undefined ? {} : { debtorAccount: { value: options.debtor, accountType: 'BBAN' } },
    ),
  });
  assert.equal(initiated.status, 200, JSON.stringify(initiated.body));
  const paymentId = initiated.body.paymentId;
  const answer = await initDecoupled(gateway, {
    client_id: gateway.sandboxApp.clientId,
    scope: `PIS:${paymentId}`,
    psu_client_ip: '192.0.2.10',
    bisa_same_device: options.sameDevice ?? false,
  });
  assert.equal(answer.status, 200, JSON.stringify(answer.body));
  return { paymentId, init: answer.body as InitAnswer };
}

const VISIBLE_TEXT = 'Pay 99.90 SEK to Sven Svensson (50001234501)';

describe('live, on the simulator (EID_PROVIDER=simulator)', () => {
  const time = manualClock();
  let gateway: Gateway;
  let token: string;
  before(async () => {
    gateway = await startGateway({ clock: time.clock, config: { mode: 'live' } });
    token = await gateway.client.clientCredentialsToken();
  });
  after(() => gateway.close());

  function poll(init: InitAnswer) {
    time.advance(2000);
    return postLink(gateway, init._links.token.href);
  }

  /** The TPP's poll: still IN_PROGRESS, and no token (a fresh QR code for another device). */
  async function assertInProgress(init: InitAnswer) {
    const polled = await poll(init);
    const body = polled.body as { qr_code?: string };
    assert.deepEqual(statusAndBody(polled), {
      status: 200,
      body: {
        result: 'IN_PROGRESS',
        sleep_time: 2000,
        ...(body.qr_code === undefined ? {} : { qr_code: body.qr_code }),
      },
    });
  }

  test('the first page says it is a simulator and sets the CSRF cookie its form carries', async () => {
    const visit = await visitEidApp(gateway);
    assert.deepEqual(page(visit.page), {
      status: 200,
      text: `${LIVE_NOTICE} Mobile e-ID (simulator) Personal number, start token or QR code Open`,
    });
    assert.match(
      String(visit.page.headers['set-cookie']),
      /^psu_csrf=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Strict; Max-Age=900$/,
    );
    assert.equal(visit.csrf, visit.cookie);
    assert.match(String(visit.page.body), /data-field="simulator-notice">/);
    assert.doesNotMatch(String(visit.page.body), /https?:\/\/(?!www\.w3)/, 'no external assets');
    // A browser that has the cookie (a login page open in another tab) keeps it.
    const again = await call(gateway.app, 'GET', '/psu/eid', {
      headers: { cookie: `psu_csrf=${visit.cookie}` },
    });
    assert.equal(again.headers['set-cookie'], undefined);
    assert.match(String(again.body), new RegExp(`name="csrf" value="${visit.cookie}"`));
  });

  test('the QR code alone signs nothing: without or with wrong credentials the TPP keeps polling IN_PROGRESS', async () => {
    const { init } = await startSession(gateway, token);
    const opened = await openInEidApp(gateway, init.qr_code!);
    assert.deepEqual(page(opened.page), { status: 200, text: identifyPage(LIVE_NOTICE) });
    assert.doesNotMatch(String(opened.page.body), /191212121212/, 'the page does not say whose order it is');
    for (const [fields, error] of [
      [{}, WRONG],
      [{ psu_id: TOLVAN.psu_id, password: 'wrong' }, WRONG],
      [{ psu_id: 'nobody', password: TEST_PSU_PASSWORD }, WRONG],
    ] as const) {
      for (const decision of ['approve', 'decline'] as const) {
        const refused = await signInEidApp(gateway, opened, { ...fields, decision });
        assert.deepEqual(page(refused), {
          status: 401,
          text: identifyPage(LIVE_NOTICE, error),
        });
      }
    }
    await assertInProgress(init);
    const order = await findOrder(gateway.store.db, opened.order!);
    assert.deepEqual([order?.status, order?.hintCode], ['pending', 'userSign']);
    // The PSU it is for still signs it.
    const signed = await signInEidApp(gateway, opened, { ...TOLVAN, decision: 'approve' });
    assert.deepEqual(page(signed), {
      status: 200,
      text: messagePage(LIVE_NOTICE, 'Signed', 'You can return to the app you came from.'),
    });
    assert.equal(((await poll(init)).body as { result: string }).result, 'COMPLETE');
  });

  test("another PSU's own credentials neither sign nor cancel this PSU's order; the PSU's do: COMPLETE", async () => {
    const { paymentId, init } = await startSession(gateway, token, { sameDevice: true });
    const opened = await openInEidApp(gateway, init.auto_start_token!);
    for (const decision of ['approve', 'decline'] as const) {
      const refused = await signInEidApp(gateway, opened, { ...AGDA, decision });
      assert.deepEqual(page(refused), { status: 403, text: identifyPage(LIVE_NOTICE, NOT_YOURS) });
    }
    await assertInProgress(init);
    const signed = await signInEidApp(gateway, opened, { ...TOLVAN, decision: 'approve' });
    assert.deepEqual(page(signed), {
      status: 200,
      text: messagePage(LIVE_NOTICE, 'Signed', 'You can return to the app you came from.'),
    });
    const complete = await poll(init);
    const body = complete.body as { access_token: string };
    assert.deepEqual(statusAndBody(complete), {
      status: 200,
      body: { result: 'COMPLETE', access_token: body.access_token, token_type: 'Bearer', expires_in: 900 },
    });
    const executed = await gateway.client.execute(PRODUCT, paymentId, body.access_token);
    assert.deepEqual([executed.status, executed.body], [200, { paymentId, transactionStatus: 'ACSC' }]);
    const again = await signInEidApp(gateway, opened, { ...TOLVAN, decision: 'decline' });
    assert.deepEqual(page(again), {
      status: 400,
      text: messagePage(LIVE_NOTICE, 'Nothing to sign', 'This identification has ended.'),
    });
  });

  test('whoever types a personal number sees nothing of the order; the PSU it is for, identified, does', async () => {
    const { init } = await startSession(gateway, token);
    const opened = await openInEidApp(gateway, TOLVAN.psu_id);
    assert.deepEqual(page(opened.page), { status: 200, text: identifyPage(LIVE_NOTICE) });
    assert.doesNotMatch(String(opened.page.body), /99\.90|Sven Svensson|50001234501/);
    for (const [fields, status, error] of [
      [{ psu_id: TOLVAN.psu_id, password: 'guess' }, 401, WRONG],
      [AGDA, 403, NOT_YOURS],
    ] as const) {
      const refused = await identifyInEidApp(gateway, opened, fields);
      assert.deepEqual(page(refused), { status, text: identifyPage(LIVE_NOTICE, error) });
      assert.doesNotMatch(String(refused.body), /99\.90|Sven Svensson|50001234501/);
    }
    const identified = await identifyInEidApp(gateway, opened, TOLVAN);
    assert.deepEqual(page(identified), {
      status: 200,
      text: `${LIVE_NOTICE} Sign ${VISIBLE_TEXT} Sign Cancel`,
    });
    const ticket = formField(String(identified.body), 'request')!;
    assert.match(ticket, /^[A-Za-z0-9_-]{43}$/);
    // The order's reference, or a ticket nobody was given, signs nothing.
    for (const request of [opened.order!, 'x'.repeat(43), '']) {
      const forged = await postEidForm(gateway, '/psu/eid/sign', opened, { request, decision: 'approve' });
      assert.deepEqual(page(forged), {
        status: 400,
        text: messagePage(LIVE_NOTICE, 'Nothing to sign', 'This identification has ended.'),
      });
    }
    await assertInProgress(init);
    const signed = await postEidForm(gateway, '/psu/eid/sign', opened, {
      request: ticket,
      decision: 'approve',
    });
    assert.deepEqual(page(signed), {
      status: 200,
      text: messagePage(LIVE_NOTICE, 'Signed', 'You can return to the app you came from.'),
    });
    assert.equal(((await poll(init)).body as { result: string }).result, 'COMPLETE');
  });

  test('the PSU, identified, cancels: USER_CANCEL', async () => {
    const { init } = await startSession(gateway, token);
    const opened = await openInEidApp(gateway, TOLVAN.psu_id);
    const cancelled = await signInEidApp(gateway, opened, { ...TOLVAN, decision: 'decline' });
    assert.deepEqual(page(cancelled), {
      status: 200,
      text: messagePage(LIVE_NOTICE, 'Cancelled', 'Nothing was signed.'),
    });
    assert.deepEqual(statusAndBody(await poll(init)), { status: 200, body: { result: 'USER_CANCEL' } });
  });

  test('an order past its time is signed by nobody: intent_expired', async () => {
    const { init } = await startSession(gateway, token);
    const opened = await openInEidApp(gateway, init.qr_code!);
    time.advance(180_000);
    const late = await signInEidApp(gateway, opened, { ...TOLVAN, decision: 'approve' });
    assert.deepEqual(page(late), {
      status: 400,
      text: messagePage(LIVE_NOTICE, 'Nothing to sign', 'This identification has ended.'),
    });
    assert.deepEqual(statusAndBody(await poll(init)), {
      status: 400,
      body: {
        error: 'intent_expired',
        error_description: 'the PSU did not complete the identification in time',
      },
    });
  });

  test('without the cookie, or with another token, a form is no longer valid: nothing opens or signs', async () => {
    const { init } = await startSession(gateway, token);
    const invalid = {
      status: 400,
      text: messagePage(LIVE_NOTICE, 'This page is no longer valid', 'Open the identification again.'),
    };
    const visit = await visitEidApp(gateway);
    const forged = { cookie: 'x'.repeat(43), csrf: 'x'.repeat(43) };
    // Another site can post the form but cannot send the SameSite cookie.
    const noCookie = await call(gateway.app, 'POST', '/psu/eid/open', {
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ csrf: visit.csrf, input: init.qr_code! }).toString(),
    });
    assert.deepEqual(page(noCookie), invalid);
    assert.deepEqual(
      page(
        await postEidForm(
          gateway,
          '/psu/eid/open',
          { ...visit, csrf: forged.csrf },
          { input: init.qr_code! },
        ),
      ),
      invalid,
    );
    const opened = await openInEidApp(gateway, init.qr_code!);
    assert.equal(opened.page.status, 200);
    for (const bad of [
      { ...opened, csrf: forged.csrf },
      { ...opened, cookie: forged.cookie },
    ]) {
      assert.deepEqual(page(await signInEidApp(gateway, bad, { ...TOLVAN, decision: 'approve' })), invalid);
    }
    await assertInProgress(init);
  });

  test('five wrong passwords lock the PSU: then even the right one signs nothing', async () => {
    const { init } = await startSession(gateway, token, { debtor: ACCOUNTS.agda.bban! });
    const opened = await openInEidApp(gateway, AGDA.psu_id);
    const wrong = { psu_id: AGDA.psu_id, password: 'wrong', decision: 'approve' } as const;
    for (let attempt = 1; attempt <= 4; attempt++) {
      assert.deepEqual(page(await signInEidApp(gateway, opened, wrong)), {
        status: 401,
        text: identifyPage(LIVE_NOTICE, WRONG),
      });
    }
    const locked = { status: 401, text: identifyPage(LIVE_NOTICE, LOCKED) };
    assert.deepEqual(page(await signInEidApp(gateway, opened, wrong)), locked);
    assert.deepEqual(page(await signInEidApp(gateway, opened, { ...AGDA, decision: 'approve' })), locked);
    assert.deepEqual(page(await signInEidApp(gateway, opened, { ...AGDA, decision: 'decline' })), locked);
    await assertInProgress(init);
    // The lock (per personal number and address) ends after 15 minutes (the order has ended by then).
    time.advance(15 * 60_000);
    const next = await startSession(gateway, token, { debtor: ACCOUNTS.agda.bban! });
    const reopened = await openInEidApp(gateway, next.init.qr_code!);
    assert.equal((await signInEidApp(gateway, reopened, { ...AGDA, decision: 'approve' })).status, 200);
    assert.equal(((await poll(next.init)).body as { result: string }).result, 'COMPLETE');
  });

  test('a known and an unknown personal number get byte-identical sign pages to wrong passwords, locked alike from the fifth on', async () => {
    const { init } = await startSession(gateway, token, { debtor: ACCOUNTS.agda.bban! });
    const opened = await openInEidApp(gateway, init.qr_code!);
    const from = '203.0.113.20';
    for (let attempt = 1; attempt <= 7; attempt++) {
      const known = await signInEidApp(
        gateway,
        opened,
        { psu_id: AGDA.psu_id, password: 'wrong', decision: 'approve' },
        from,
      );
      const unknown = await signInEidApp(
        gateway,
        opened,
        { psu_id: '190001019999', password: 'wrong', decision: 'approve' },
        from,
      );
      assert.deepEqual([known.status, known.body], [unknown.status, unknown.body], `attempt ${attempt}`);
      assert.deepEqual(page(known), {
        status: 401,
        text: identifyPage(LIVE_NOTICE, attempt < 5 ? WRONG : LOCKED),
      });
    }
    await assertInProgress(init);
  });

  test("a stranger's wrong passwords from one address do not keep the PSU from signing from another", async () => {
    const { init } = await startSession(gateway, token, { debtor: ACCOUNTS.agda.bban! });
    const opened = await openInEidApp(gateway, init.qr_code!);
    for (let attempt = 1; attempt <= 8; attempt++) {
      const guess = { psu_id: AGDA.psu_id, password: `guess-${attempt}`, decision: 'approve' } as const;
      await signInEidApp(gateway, opened, guess, '203.0.113.66');
    }
    assert.deepEqual(
      page(await signInEidApp(gateway, opened, { ...AGDA, decision: 'approve' }, '203.0.113.66')),
      {
        status: 401,
        text: identifyPage(LIVE_NOTICE, LOCKED),
      },
    );
    assert.deepEqual(
      page(await signInEidApp(gateway, opened, { ...AGDA, decision: 'approve' }, '198.51.100.7')),
      {
        status: 200,
        text: messagePage(LIVE_NOTICE, 'Signed', 'You can return to the app you came from.'),
      },
    );
    assert.equal(((await poll(init)).body as { result: string }).result, 'COMPLETE');
  });
});

describe('sandbox', () => {
  let gateway: Gateway;
  let token: string;
  before(async () => {
    gateway = await startGateway();
    token = await gateway.client.clientCredentialsToken();
  });
  after(() => gateway.close());

  test('the app says it is the sandbox simulator and asks the PSU to identify there too', async () => {
    const { init } = await startSession(gateway, token);
    const visit = await visitEidApp(gateway);
    assert.equal(
      page(visit.page).text,
      `${SANDBOX_NOTICE} Mobile e-ID (simulator) Personal number, start token or QR code Open`,
    );
    const opened = await openInEidApp(gateway, init.qr_code!);
    assert.deepEqual(page(opened.page), { status: 200, text: identifyPage(SANDBOX_NOTICE) });
    assert.deepEqual(page(await signInEidApp(gateway, opened, { decision: 'approve' })), {
      status: 401,
      text: identifyPage(SANDBOX_NOTICE, WRONG),
    });
    assert.deepEqual(page(await signInEidApp(gateway, opened, { ...AGDA, decision: 'approve' })), {
      status: 403,
      text: identifyPage(SANDBOX_NOTICE, NOT_YOURS),
    });
    assert.deepEqual(page(await signInEidApp(gateway, opened, { ...TOLVAN, decision: 'approve' })), {
      status: 200,
      text: messagePage(SANDBOX_NOTICE, 'Signed', 'You can return to the app you came from.'),
    });
    assert.equal(
      ((await postLink(gateway, init._links.token.href)).body as { result: string }).result,
      'COMPLETE',
    );
  });

  test('nobody needs the app in the sandbox: the first poll completes', async () => {
    const { init } = await startSession(gateway, token);
    const polled = await postLink(gateway, init._links.token.href);
    assert.deepEqual([polled.status, (polled.body as { result: string }).result], [200, 'COMPLETE']);
  });
});
