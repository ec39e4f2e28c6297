// The PSU's permission dashboard over HTTP (issue 39): the built-in login, the PSU's consents and
// future-dated payments (and nobody else's), withdrawal and cancellation with and without the CSRF
// token, another PSU's ids, and what the TPP sees next: CONSENT_INVALID, invalid_grant, CANC.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { InitiationRequest, TppClient } from '@psd2-gateway/client';
import { sql } from 'drizzle-orm';
import { addDays } from '../../src/domain/dates.ts';
import { TEST_PSU_PASSWORD } from '../../src/sandbox/seed.ts';
import { type Browser, csrfOf, loggedIn, open, rowsOf, submit } from '../helpers/dashboard.ts';
import { backends, bankDate, type Gateway, manualClock, startGateway } from '../helpers/gateway.ts';
import { call, UNAUTHORIZED } from '../helpers/http.ts';
import { ACCOUNTS, domestic } from '../helpers/payments.ts';

const TOLVAN = '191212121212';
const AGDA = '198112289874';
const DOMESTIC = 'handelsbanken-domestic-credit-transfer';
const DOMESTIC_PATH = `/psd2/se/v2/payments/private/single/${DOMESTIC}`;
const SECURITY_HEADERS = {
  'cache-control': 'no-store',
  'content-security-policy':
    "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'",
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'content-type': 'text/html; charset=utf-8',
};

function headersOf(answer: { headers: Record<string, unknown> }) {
  return Object.fromEntries(Object.keys(SECURITY_HEADERS).map((name) => [name, answer.headers[name]]));
}

for (const backend of backends()) {
  describe(`the PSU's permission dashboard (${backend})`, () => {
    const time = manualClock();
    let gateway: Gateway;
    let evil: TppClient;
    const today = () => bankDate(time.clock());

    before(async () => {
      gateway = await startGateway({ backend, clock: time.clock });
      evil = await gateway.addApp('<b>Evil & Co</b>');
    });
    after(() => gateway.close());

    /** An account consent the PSU approved (sandbox redirect flow), valid for 30 days: its id and tokens. */
    async function consentOf(client: TppClient, psuId: string) {
      const created = await client.createConsent(await client.clientCredentialsToken('AIS'), {
        body: { access: 'ALL_ACCOUNTS', validUntil: addDays(today(), 30), frequencyPerDay: 2 },
        headers: { 'PSU-ID': psuId },
      });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const consentId = created.body.consentId;
      return { consentId, tokens: await client.authorizeScope(`AIS:${consentId}`) };
    }

    /** A payment of the PSU executed with a date three days ahead: waiting for it (ACCP). */
    async function scheduledPayment(client: TppClient, body: InitiationRequest) {
      const token = await client.clientCredentialsToken();
      const initiated = await client.initiate(token, {
        path: DOMESTIC_PATH,
        body: { ...body, requestedExecutionDate: addDays(today(), 3) },
      });
      assert.equal(initiated.status, 200, JSON.stringify(initiated.body));
      const { paymentId } = initiated.body;
      const executed = await client.authorizeAndExecute(DOMESTIC, paymentId);
      assert.deepEqual(executed.body, { paymentId, transactionStatus: 'ACCP' });
      return paymentId;
    }

    async function statusOf(client: TppClient, paymentId: string) {
      const answer = await client.status(DOMESTIC, paymentId, await client.clientCredentialsToken(), 'SE');
      return { status: answer.status, body: answer.body };
    }

    function refresh(client: TppClient, refreshToken: string) {
      return call(gateway.app, 'POST', '/refresh/oauth2/token/1.0', {
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({
          grant_type: 'refresh_token',
          refresh_token: refreshToken,
          client_id: client.clientId,
        }).toString(),
      });
    }

    const readAccounts = async (client: TppClient, token: string) => {
      const answer = await client.read('/psd2/v1/accounts', token, { psuPresent: false });
      return { status: answer.status, body: answer.body };
    };

    test('the login page, then the PSU sees exactly their own consents and future-dated payments', async () => {
      const browser: Browser = {};
      const login = await open(gateway, browser);
      assert.equal(login.status, 200);
      assert.deepEqual(headersOf(login), SECURITY_HEADERS);
      assert.match(
        String(login.headers['set-cookie']),
        /^psu_csrf=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Strict; Max-Age=900$/,
      );
      assert.match(String(login.body), /<h1>Log in to see your permissions<\/h1>/);
      // A login form whose CSRF token is not its cookie's changes nothing.
      const forged = await submit(gateway, browser, '/login', {
        csrf: 'forged',
        psu_id: TOLVAN,
        password: TEST_PSU_PASSWORD,
      });
      assert.equal(forged.status, 400);
      assert.match(String(forged.body), /This page is no longer valid/);
      assert.equal(browser.session, undefined);
      const wrong = await submit(gateway, browser, '/login', {
        csrf: csrfOf(login),
        psu_id: TOLVAN,
        password: 'not-it',
      });
      assert.equal(wrong.status, 401);
      assert.match(String(wrong.body), /role="alert">The PSU id or the password is wrong\.</);
      assert.equal(browser.session, undefined);
      const right = await submit(gateway, browser, '/login', {
        csrf: csrfOf(login),
        psu_id: TOLVAN,
        password: TEST_PSU_PASSWORD,
      });
      assert.equal(right.status, 302);
      assert.equal(right.headers.location, '/psu/dashboard');
      assert.match(
        String(right.headers['set-cookie']),
        /^psu_session=[A-Za-z0-9_-]{43}; Path=\/psu\/dashboard; HttpOnly; SameSite=Strict$/,
      );

      const own = await consentOf(gateway.client, TOLVAN);
      // Listed oldest first.
      time.advance(1000);
      const evils = await consentOf(evil, TOLVAN);
      await consentOf(gateway.client, AGDA);
      // One read without the PSU present: the consent's last access, today.
      assert.equal((await readAccounts(gateway.client, own.tokens.access_token)).status, 200);
      const payment = await scheduledPayment(
        gateway.client,
        domestic({ creditor: { name: 'Hyresvärden <AB>' } }),
      );
      await scheduledPayment(
        gateway.client,
        domestic({
          debtorAccount: { value: ACCOUNTS.agda.bban!, accountType: 'BBAN', currency: 'SEK' },
          creditorAccount: { value: ACCOUNTS.tolvan.bban!, accountType: 'BBAN' },
        }),
      );

      const page = await open(gateway, browser);
      assert.equal(page.status, 200);
      assert.deepEqual(headersOf(page), SECURITY_HEADERS);
      const html = String(page.body);
      assert.match(html, /Logged in as <strong data-field="psu">191212121212<\/strong>/);
      const until = addDays(today(), 30);
      assert.deepEqual(rowsOf(html, 'consent'), [
        {
          id: own.consentId,
          fields: {
            tpp: 'Sandbox app',
            access: 'Accounts, balances, card accounts and transactions (all accounts)',
            'valid-until': until,
            'last-access': today(),
            'accesses-per-day': 'Up to 2 a day per account without you; 1 today',
          },
        },
        {
          id: evils.consentId,
          fields: {
            tpp: '&lt;b&gt;Evil &amp; Co&lt;/b&gt;',
            access: 'Accounts, balances, card accounts and transactions (all accounts)',
            'valid-until': until,
            'last-access': 'Not yet',
            'accesses-per-day': 'Up to 2 a day per account without you; 0 today',
          },
        },
      ]);
      assert.deepEqual(rowsOf(html, 'payment'), [
        {
          id: payment,
          fields: {
            amount: '125.50 SEK',
            creditor: 'Hyresvärden &lt;AB&gt;',
            'creditor-account': ACCOUNTS.agda.bban!,
            date: addDays(today(), 3),
            tpp: 'Sandbox app',
          },
        },
      ]);
      assert.doesNotMatch(html, /<b>Evil/, 'escaped');
      assert.doesNotMatch(html, /https?:\/\//, 'no external assets');
    });

    test('withdraw: without the CSRF token nothing changes; with it the TPP reads CONSENT_INVALID and refreshes invalid_grant', async () => {
      const browser = await loggedIn(gateway, TOLVAN);
      const { consentId, tokens } = await consentOf(gateway.client, TOLVAN);
      const csrf = csrfOf(await open(gateway, browser));
      for (const fields of [{}, { csrf: 'forged' }, { csrf: csrf.slice(1) }] as Record<string, string>[]) {
        const refused = await submit(gateway, browser, `/consents/${consentId}/withdraw`, fields);
        assert.equal(refused.status, 400);
        assert.match(String(refused.body), /<h1>This page is no longer valid<\/h1>/);
      }
      // The right token without the session's cookie (another browser) changes nothing either.
      const foreign = await submit(
        gateway,
        { csrfCookie: browser.csrfCookie! },
        `/consents/${consentId}/withdraw`,
        { csrf },
      );
      assert.equal(foreign.status, 400);
      assert.equal((await readAccounts(gateway.client, tokens.access_token)).status, 200);

      const withdrawn = await submit(gateway, browser, `/consents/${consentId}/withdraw`, { csrf });
      assert.equal(withdrawn.status, 302);
      assert.equal(withdrawn.headers.location, '/psu/dashboard?notice=withdrawn');
      assert.equal(withdrawn.headers['cache-control'], 'no-store');
      assert.deepEqual(
        await readAccounts(gateway.client, tokens.access_token),
        UNAUTHORIZED({ code: 'CONSENT_INVALID', text: 'The consent was revoked by the PSU' }),
      );
      const refreshed = await refresh(gateway.client, tokens.refresh_token!);
      assert.deepEqual(
        { status: refreshed.status, body: refreshed.body },
        {
          status: 400,
          body: {
            error: 'invalid_grant',
            error_description: 'the consent of the refresh token is no longer valid',
          },
        },
      );
      const status = await gateway.client.read(
        `/psd2/v1/consents/${consentId}/status`,
        await gateway.client.clientCredentialsToken('AIS'),
      );
      assert.deepEqual(status.body, { consentStatus: 'revokedByPsu' });
      const after = await open(gateway, browser, '?notice=withdrawn');
      assert.match(
        String(after.body),
        /data-field="notice">The consent is withdrawn: the provider can no longer read your accounts with it\.</,
      );
      assert.ok(
        !rowsOf(String(after.body), 'consent').some((row) => row.id === consentId),
        'the withdrawn consent is no longer listed',
      );
      // Again: nothing more to do, the same answer.
      const again = await submit(gateway, browser, `/consents/${consentId}/withdraw`, { csrf });
      assert.equal(again.status, 302);
    });

    test("another PSU's consent and payment, and unknown ids, answer 404 and change nothing", async () => {
      const agda = await consentOf(gateway.client, AGDA);
      const agdasPayment = await scheduledPayment(
        gateway.client,
        domestic({
          debtorAccount: { value: ACCOUNTS.agda.bban!, accountType: 'BBAN', currency: 'SEK' },
          creditorAccount: { value: ACCOUNTS.tolvan.bban!, accountType: 'BBAN' },
        }),
      );
      const browser = await loggedIn(gateway, TOLVAN);
      const csrf = csrfOf(await open(gateway, browser));
      for (const path of [
        `/consents/${agda.consentId}/withdraw`,
        `/payments/${agdasPayment}/cancel`,
        '/consents/no-such-consent/withdraw',
        '/payments/no-such-payment/cancel',
      ]) {
        const answer = await submit(gateway, browser, path, { csrf });
        assert.equal(answer.status, 404, path);
        assert.deepEqual(headersOf(answer), SECURITY_HEADERS);
        assert.match(String(answer.body), /<h1>Not found<\/h1><p>Nothing of yours has that id\.<\/p>/);
      }
      assert.equal((await readAccounts(gateway.client, agda.tokens.access_token)).status, 200);
      assert.deepEqual((await statusOf(gateway.client, agdasPayment)).body, {
        paymentId: agdasPayment,
        transactionStatus: 'ACCP',
      });
    });

    test('cancel a future-dated payment: without the CSRF token nothing changes; with it the TPP reads CANC', async () => {
      const paymentId = await scheduledPayment(gateway.client, domestic());
      const browser = await loggedIn(gateway, TOLVAN);
      const csrf = csrfOf(await open(gateway, browser));
      const refused = await submit(gateway, browser, `/payments/${paymentId}/cancel`, { csrf: 'forged' });
      assert.equal(refused.status, 400);
      assert.deepEqual((await statusOf(gateway.client, paymentId)).body, {
        paymentId,
        transactionStatus: 'ACCP',
      });
      const cancelled = await submit(gateway, browser, `/payments/${paymentId}/cancel`, { csrf });
      assert.equal(cancelled.status, 302);
      assert.equal(cancelled.headers.location, '/psu/dashboard?notice=cancelled');
      assert.deepEqual(await statusOf(gateway.client, paymentId), {
        status: 200,
        body: { paymentId, transactionStatus: 'CANC' },
      });
      const after = await open(gateway, browser, '?notice=cancelled');
      assert.match(
        String(after.body),
        /data-field="notice">The payment is cancelled: it will not be made\.</,
      );
      assert.ok(
        !rowsOf(String(after.body), 'payment').some((row) => row.id === paymentId),
        'the cancelled payment is no longer listed',
      );
    });

    test('a payment whose booking is under way is too late to cancel: 409, and it stays ACCP', async () => {
      const paymentId = await scheduledPayment(gateway.client, domestic());
      // The scheduler has asked the core banking system to book it (store/payments/bookings.ts).
      await gateway.store.db.execute(
        sql`UPDATE payments SET booking_key = ${paymentId}, booking_started_at = now() WHERE payment_id = ${paymentId}`,
      );
      const browser = await loggedIn(gateway, TOLVAN);
      const csrf = csrfOf(await open(gateway, browser));
      const late = await submit(gateway, browser, `/payments/${paymentId}/cancel`, { csrf });
      assert.equal(late.status, 409);
      assert.match(
        String(late.body),
        /<h1>Too late to cancel<\/h1><p>The payment is being made or no longer waits for its date\.<\/p>/,
      );
      assert.deepEqual((await statusOf(gateway.client, paymentId)).body, {
        paymentId,
        transactionStatus: 'ACCP',
      });
    });

    test('a session idle for more than 5 minutes ends; logging out ends it at once', async () => {
      const browser = await loggedIn(gateway, TOLVAN);
      const csrf = csrfOf(await open(gateway, browser));
      time.advance(5 * 60_000 + 1);
      const idle = await open(gateway, browser);
      assert.match(String(idle.body), /<h1>Log in to see your permissions<\/h1>/);
      assert.equal((await submit(gateway, browser, '/logout', { csrf })).status, 400);

      const next = await loggedIn(gateway, TOLVAN);
      const token = csrfOf(await open(gateway, next));
      const session = next.session!;
      const out = await submit(gateway, next, '/logout', { csrf: token });
      assert.equal(out.status, 302);
      assert.match(
        String(out.headers['set-cookie']),
        /^psu_session=; Path=\/psu\/dashboard; HttpOnly; SameSite=Strict; Max-Age=0$/,
      );
      const reused = await open(gateway, { ...next, session });
      assert.match(String(reused.body), /<h1>Log in to see your permissions<\/h1>/);
    });
  });
}
