// The typed client against a real gateway over HTTP, on PGlite and on PostgreSQL: every flow it covers
// (redirect, decoupled with its pacing, signing baskets, onboarding, consents, accounts, card accounts),
// whole answers as a TPP reads them, and failures reachable as TppError (status, body, code).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { expectOk, expectStatus, type HttpAnswer, TppClient, TppError } from '@psd2-gateway/client';
import { addDays } from '../../src/domain/dates.ts';
import { expectedAccount } from '../helpers/accounts.ts';
import { backends, bankDate, type Gateway, startGateway } from '../helpers/gateway.ts';
import { BAD_REQUEST, errorBody, expectedScaMethods, UNAUTHORIZED } from '../helpers/http.ts';
import { ACCOUNTS, domestic } from '../helpers/payments.ts';
import { refusedPort } from '../helpers/ports.ts';

const DOMESTIC = 'handelsbanken-domestic-credit-transfer';
const GIRO = 'sek-credit-transfer';
const SE_DOMESTIC = `/psd2/se/v2/payments/private/single/${DOMESTIC}`;
/** README "Sandbox scenarios": the accounts of Dennis Declines, Sofia Slow and Erik Expires. */
const SCENARIO_ACCOUNTS = { dennis: '6000240000056', sofia: '6000240000064', erik: '6000240000072' };
const NL_PSU = 'nl-1001';

const whole = (answer: HttpAnswer) => ({ status: answer.status, body: answer.body });
const psuTokenBody = (access_token: string) => ({ access_token, token_type: 'Bearer', expires_in: 900 });

/** The TppError a promise rejects with. */
async function tppError(promise: Promise<unknown>): Promise<TppError> {
  const error = await promise.then(
    () => assert.fail('expected a TppError'),
    (caught: unknown) => caught,
  );
  assert.ok(error instanceof TppError, String(error));
  return error;
}

/** A sleep that returns at once and remembers what it was asked to wait. */
function recordingSleep() {
  const asked: number[] = [];
  return { asked, sleep: async (ms: number) => void asked.push(ms) };
}

for (const backend of backends()) {
  describe(`the typed client on ${backend}`, () => {
    let gateway: Gateway;
    let client: TppClient;
    let pis: string;
    let ais: string;
    before(async () => {
      gateway = await startGateway({ backend });
      client = gateway.client;
      pis = await client.clientCredentialsToken();
      ais = await client.clientCredentialsToken('AIS');
    });
    after(() => gateway.close());

    /** A domestic payment on Sweden v2, from Tolvan's account or the one given: its id. */
    async function initiated(debtor?: string): Promise<string> {
      const body = domestic(
        debtor === undefined ? {} : { debtorAccount: { value: debtor, accountType: 'BBAN' } },
      );
      return expectOk(await client.initiate(pis, { path: SE_DOMESTIC, body }), 'initiate').paymentId;
    }

    describe('redirect flow', () => {
      test('token, initiate, authorize, code exchange, execute, status', async () => {
        const answer = await client.initiate(pis, { path: SE_DOMESTIC, body: domestic() });
        const { paymentId } = answer.body;
        assert.deepEqual(whole(answer), {
          status: 200,
          body: { paymentId, scaMethods: expectedScaMethods(gateway.url, true), transactionStatus: 'ACTC' },
        });
        assert.deepEqual([answer.method, answer.url], ['POST', gateway.url + SE_DOMESTIC]);

        const scope = `PIS:${paymentId}`;
        const redirected = await client.authorizationRequest(scope, 'state-1');
        assert.equal(redirected.status, 302);
        assert.deepEqual(Object.fromEntries(new URL(redirected.url).searchParams), {
          response_type: 'code',
          scope,
          client_id: client.clientId,
          state: 'state-1',
          redirect_uri: client.redirectUri,
        });
        assert.equal(redirected.url, client.authorizationUrl(scope, 'state-1'));
        const location = new URL(redirected.headers.get('location')!);
        assert.equal(location.origin + location.pathname, gateway.sandboxApp.redirectUri);
        const query = await client.authorize(scope, 'state-2');
        const code = query.get('code')!;
        assert.deepEqual(Object.fromEntries(query), { code, state: 'state-2' });

        const exchanged = await client.exchangeCode(scope, code);
        assert.deepEqual(whole(exchanged), { status: 200, body: psuTokenBody(exchanged.body.access_token) });
        const psu = exchanged.body.access_token;
        assert.deepEqual(whole(await client.execute(DOMESTIC, paymentId, psu)), {
          status: 200,
          body: { paymentId, transactionStatus: 'ACCC' },
        });
        for (const reader of [pis, psu]) {
          assert.deepEqual(whole(await client.status(DOMESTIC, paymentId, reader, 'SE')), {
            status: 200,
            body: { paymentId, transactionStatus: 'ACCC' },
          });
        }
      });

      test('failures: the answer as it came, or a TppError carrying status, body and code', async () => {
        const refused = await client.initiate(pis, {
          path: SE_DOMESTIC,
          body: domestic({ creditorAccount: { value: '123', accountType: 'BBAN' } }),
        });
        const error = await tppError(Promise.resolve().then(() => expectOk(refused, 'initiate payment')));
        assert.deepEqual({ status: error.status, body: error.body }, whole(refused));
        assert.equal(error.status, 400);
        assert.equal(
          error.code,
          (refused.body as unknown as { tppMessages: { code: string }[] }).tppMessages[0]!.code,
        );
        assert.equal(error.answer, refused);
        assert.match(error.message, /^initiate payment answered 400: [A-Z_]+: /);

        const stranger = new TppClient(gateway.url, 'nobody', 'https://tpp.example/cb');
        const unknown = await tppError(stranger.clientCredentialsToken());
        assert.deepEqual(
          [unknown.status, unknown.body, unknown.code],
          [
            401,
            { error: 'invalid_client', error_description: 'client authentication failed' },
            'invalid_client',
          ],
        );

        // A redirect URI that is not the app's is never redirected to: 400 with the API error body.
        const elsewhere = new TppClient(gateway.url, client.clientId, 'https://evil.example/cb');
        const notRedirected = await tppError(elsewhere.authorize(`PIS:${await initiated()}`, 's'));
        assert.deepEqual(
          { status: notRedirected.status, body: notRedirected.body },
          BAD_REQUEST({
            code: 'FORMAT_ERROR',
            path: 'redirect_uri',
            text: "redirect_uri is not the app's registered redirect URI",
          }),
        );

        // Dennis Declines: the redirect carries access_denied instead of a code.
        const declined = await tppError(
          client.authorizeScope(`PIS:${await initiated(SCENARIO_ACCOUNTS.dennis)}`),
        );
        assert.equal(declined.status, 302);
        assert.deepEqual(
          { ...(declined.body as Record<string, string>), state: undefined },
          { error: 'access_denied', error_description: 'the PSU denied the authorization', state: undefined },
        );

        const port = await refusedPort();
        const nowhere = new TppClient(`http://127.0.0.1:${port}`, client.clientId, client.redirectUri);
        await assert.rejects(nowhere.clientCredentialsToken(), {
          message: `POST http://127.0.0.1:${port}/oauth2/token/1.0 failed: connect ECONNREFUSED 127.0.0.1:${port}`,
        });
      });
    });

    describe('decoupled authorization', () => {
      test('start: the session with its token and cancel links, same device or QR code', async () => {
        const paymentId = await initiated();
        const same = await client.decoupled.start(`PIS:${paymentId}`);
        const link = (action: string, href: string) => {
          assert.match(
            href,
            new RegExp(`^${gateway.url}/decoupled/eid/${action}/2\\.0\\?sessionId=[\\w-]+$`),
          );
          return { href, hints: { allow: ['POST'] } };
        };
        assert.deepEqual(whole(same), {
          status: 200,
          body: {
            auto_start_token: same.body.auto_start_token,
            sleep_time: 2000,
            _links: {
              token: link('token', same.body._links.token.href),
              cancel: link('cancel', same.body._links.cancel.href),
            },
          },
        });
        const other = await client.decoupled.start(`PIS:${paymentId}`, { sameDevice: false });
        assert.match(other.body.qr_code!, /^bankid\./);
        assert.equal(other.body.auto_start_token, undefined);
        assert.deepEqual(whole(await client.decoupled.cancel(other.body)), { status: 204, body: '' });
      });

      test('Sofia Slow: the client waits the answered sleep_time before every poll, until COMPLETE', async () => {
        const paymentId = await initiated(SCENARIO_ACCOUNTS.sofia);
        const { asked, sleep } = recordingSleep();
        const polls: unknown[] = [];
        const complete = await client.decoupled.authorize(`PIS:${paymentId}`, {
          sleep,
          onPoll: (answer, poll) => polls.push([poll, whole(answer)]),
        });
        assert.deepEqual(asked, [2000, 2000, 2000], 'sleep_time before the first poll and between polls');
        assert.deepEqual(complete, { result: 'COMPLETE', ...psuTokenBody(complete.access_token) });
        assert.deepEqual(polls, [
          [1, { status: 200, body: { result: 'IN_PROGRESS', sleep_time: 2000 } }],
          [2, { status: 200, body: { result: 'IN_PROGRESS', sleep_time: 2000 } }],
          [3, { status: 200, body: complete }],
        ]);
        assert.deepEqual(whole(await client.execute(DOMESTIC, paymentId, complete.access_token)), {
          status: 200,
          body: { paymentId, transactionStatus: 'ACCC' },
        });
      });

      test('without a sleep given, a real timer: the first poll comes sleep_time after the start', async () => {
        const paymentId = await initiated();
        const session = expectOk(await client.decoupled.start(`PIS:${paymentId}`), 'start');
        const started = performance.now();
        let polledAfter = 0;
        const final = await client.decoupled.waitForResult(session, {
          onPoll: () => {
            polledAfter = performance.now() - started;
          },
        });
        assert.equal(final.result, 'COMPLETE');
        assert.ok(polledAfter >= session.sleep_time, `polled after ${polledAfter} ms`);
      });

      test('a refusal and an error are TppErrors; the polls are bounded', async () => {
        const cancelled = recordingSleep();
        const refused = await tppError(
          client.decoupled.authorize(`PIS:${await initiated(SCENARIO_ACCOUNTS.dennis)}`, cancelled),
        );
        assert.deepEqual(
          [refused.status, refused.body, refused.code],
          [200, { result: 'USER_CANCEL' }, 'USER_CANCEL'],
        );
        assert.deepEqual(cancelled.asked, [2000, 2000]);

        const expired = await tppError(
          client.decoupled.authorize(`PIS:${await initiated(SCENARIO_ACCOUNTS.erik)}`, recordingSleep()),
        );
        assert.deepEqual(
          [expired.status, expired.body],
          [
            400,
            {
              error: 'intent_expired',
              error_description: 'the PSU did not complete the identification in time',
            },
          ],
        );

        const slow = expectOk(
          await client.decoupled.start(`PIS:${await initiated(SCENARIO_ACCOUNTS.sofia)}`),
          'start',
        );
        await assert.rejects(client.decoupled.waitForResult(slow, { ...recordingSleep(), maxPolls: 2 }), {
          message: 'decoupled authorization still IN_PROGRESS after 2 polls',
        });

        const unknownScope = await tppError(client.decoupled.authorize('PIS:nothing', recordingSleep()));
        assert.deepEqual([unknownScope.status, unknownScope.code], [400, 'invalid_request']);
      });
    });

    describe('signing baskets', () => {
      const payments = () => [
        { ...domestic(), paymentProduct: DOMESTIC, tppPaymentReference: 'rent' },
        {
          paymentProduct: GIRO,
          tppPaymentReference: 'power',
          debtorAccount: { value: ACCOUNTS.tolvan.bban!, accountType: 'BBAN' },
          creditorAccount: { value: '505-0109', accountType: 'BG' },
          creditor: { name: 'Elbolaget AB' },
          instructedAmount: { currency: 'SEK', amount: '250.00' },
          remittanceInformationUnstructured: 'OCR 4455667788',
        },
      ];

      test('initiate, authorize the basket (redirect), execute it, each status by its own id', async () => {
        const answer = await client.baskets.initiate(pis, payments());
        const basketId = answer.body.signingBaskedId;
        const [rent, power] = answer.body.payments;
        assert.deepEqual(whole(answer), {
          status: 200,
          body: {
            payments: [
              { paymentId: rent!.paymentId, tppPaymentReference: 'rent' },
              { paymentId: power!.paymentId, tppPaymentReference: 'power' },
            ],
            signingBaskedId: basketId,
          },
        });
        const psu = (await client.authorizeScope(`PIS:${basketId}`)).access_token;
        assert.deepEqual(whole(await client.baskets.execute(GIRO, basketId, psu)), {
          status: 200,
          body: { signingBasketId: basketId, transactionStatus: 'ACSC' },
        });
        assert.deepEqual(whole(await client.status(DOMESTIC, rent!.paymentId, pis, 'SE')), {
          status: 200,
          body: { paymentId: rent!.paymentId, transactionStatus: 'ACCC' },
        });
        assert.deepEqual(whole(await client.status(GIRO, power!.paymentId, pis, 'SE')), {
          status: 200,
          body: { paymentId: power!.paymentId, transactionStatus: 'ACSC' },
        });
      });

      test('the basket authorized in the decoupled flow', async () => {
        const basketId = expectOk(await client.baskets.initiate(pis, payments()), 'basket').signingBaskedId;
        const complete = await client.decoupled.authorize(`PIS:${basketId}`, recordingSleep());
        assert.deepEqual(whole(await client.baskets.execute(DOMESTIC, basketId, complete.access_token)), {
          status: 200,
          body: { signingBasketId: basketId, transactionStatus: 'ACSC' },
        });
      });
    });

    test('onboarding: enroll, admin token, an app with its first product, one more product', async () => {
      const enrolled = await client.onboarding.enroll();
      const tppId = enrolled.body.clientId;
      assert.deepEqual(whole(enrolled), { status: 201, body: { clientId: tppId } });
      assert.match(tppId, /^XX-SANDBOX-\d{8}$/);
      const admin = await client.onboarding.adminToken(tppId);
      assert.deepEqual(whole(admin), {
        status: 200,
        body: { access_token: admin.body.access_token, expires_in: 7776000, token_type: 'Bearer' },
      });
      const app = {
        name: 'Budget Buddy',
        description: 'Budgets',
        oauthRedirectURI: 'https://buddy.example/cb',
      };
      const registered = await client.onboarding.registerApp(tppId, admin.body.access_token, app, 'payments');
      const appId = registered.body.clientId;
      assert.match(appId, /^[0-9a-f]{32}$/);
      const subscription = (
        answer: HttpAnswer<{ subscription: { subscriptionId: string } }>,
        name: string,
        version: string,
        scope: string,
      ) => ({
        status: 200,
        body: {
          ...app,
          notificationHosts: [],
          clientId: appId,
          subscription: {
            subscriptionId: answer.body.subscription.subscriptionId,
            product: { name, version, scope },
          },
        },
      });
      assert.deepEqual(whole(registered), subscription(registered, 'payments', '1.0.2', 'PIS'));
      const added = await client.onboarding.subscribe(tppId, admin.body.access_token, appId, 'consents');
      assert.deepEqual(whole(added), subscription(added, 'consents', '1.0.0', 'AIS'));
      const unknown = await client.onboarding.subscribe(tppId, admin.body.access_token, appId, 'lottery');
      assert.deepEqual(whole(unknown), {
        status: 404,
        body: errorBody(404, 'Not Found', {
          code: 'PRODUCT_UNKNOWN',
          path: 'product.name',
          text: 'product.name names no API product of the bank',
        }),
      });

      // The new app acts within its products: payments on the general API, not Sweden v2.
      const buddy = new TppClient(gateway.url, appId, app.oauthRedirectURI);
      const token = await buddy.clientCredentialsToken();
      const general = await buddy.initiate(token, {
        path: `/psd2/v1/payments/${DOMESTIC}`,
        country: 'SE',
        body: domestic(),
      });
      assert.equal(general.status, 200, JSON.stringify(general.body));
      const v2 = await tppError(
        buddy.initiate(token, { path: SE_DOMESTIC, body: domestic() }).then((a) => expectOk(a, 'initiate')),
      );
      assert.deepEqual([v2.status, v2.code], [403, 'PRODUCT_INVALID']);
    });

    describe('account information', () => {
      test('consents: create, status, authorize, read, delete; a deleted consent reads nothing', async () => {
        const created = await client.consents.create(ais);
        const { consentId } = created.body;
        assert.deepEqual(whole(created), {
          status: 201,
          body: { consentId, consentStatus: 'received', scaMethods: expectedScaMethods(gateway.url, true) },
        });
        assert.deepEqual(whole(await client.consents.status(consentId, ais)), {
          status: 200,
          body: { consentStatus: 'received' },
        });
        const tokens = await client.authorizeScope(`AIS:${consentId}`);
        assert.match(tokens.refresh_token!, /^[\w-]{43}$/);
        const today = bankDate();
        const read = await client.consents.read(consentId, tokens.access_token);
        assert.deepEqual(whole(read), {
          status: 200,
          body: {
            consentId,
            consentStatus: 'valid',
            access: 'ALL_ACCOUNTS',
            validUntil: read.body.validUntil,
            frequencyPerDay: 4,
          },
        });
        assert.ok(
          [addDays(today, 179), addDays(today, 180)].includes(read.body.validUntil),
          `validUntil ${read.body.validUntil}, 180 days from ${today}`,
        );
        assert.deepEqual(whole(await client.consents.delete(consentId, ais)), { status: 204, body: '' });
        assert.deepEqual(whole(await client.consents.status(consentId, ais)), {
          status: 200,
          body: { consentStatus: 'terminatedByTpp' },
        });
        assert.deepEqual(
          whole(await client.accounts.list(tokens.access_token)),
          UNAUTHORIZED({ code: 'CONSENT_INVALID', text: 'The consent was ended by the TPP' }),
        );
      });

      test('accounts: list, details, balances, transactions; version 2 records', async () => {
        // Jan de Vries's EUR account: no other test of this file pays from or to it.
        const consentId = expectStatus(
          await client.consents.create(ais, { headers: { 'PSU-ID': NL_PSU } }),
          201,
          'consent',
        ).consentId;
        const token = (await client.authorizeScope(`AIS:${consentId}`)).access_token;
        const { accountId } = ACCOUNTS.nl;
        const account = (balance?: string, version: 1 | 2 = 1) =>
          expectedAccount(ACCOUNTS.nl, gateway.url, {
            ...(balance === undefined ? {} : { balance }),
            ...(version === 2 ? { version, prefix: '/psd2/v2' } : {}),
          });
        assert.deepEqual(whole(await client.accounts.list(token)), {
          status: 200,
          body: { accounts: [account('150000.00')] },
        });
        assert.deepEqual(whole(await client.accounts.list(token, { withBalance: false })), {
          status: 200,
          body: { accounts: [account()] },
        });
        assert.deepEqual(whole(await client.accounts.details(accountId, token)), {
          status: 200,
          body: account(),
        });
        assert.deepEqual(whole(await client.accounts.details(accountId, token, { withBalance: true })), {
          status: 200,
          body: account('150000.00'),
        });
        assert.deepEqual(whole(await client.accounts.balances(accountId, token)), {
          status: 200,
          body: { accountId, balances: account('150000.00').balances },
        });
        const today = bankDate();
        const transactions = await client.accounts.transactions(accountId, token, {
          dateFrom: addDays(today, -60),
        });
        assert.equal(transactions.status, 200);
        assert.equal(transactions.body.accountId, accountId);
        assert.ok(
          transactions.body.transactions.length > 5,
          `${transactions.body.transactions.length} lines`,
        );
        for (const transaction of transactions.body.transactions) {
          assert.equal(transaction.amount.currency, 'EUR');
          assert.ok(transaction.transactionDate >= addDays(today, -61), transaction.transactionDate);
          assert.ok(['DEBITED', 'CREDITED'].includes(transaction.creditDebit), transaction.creditDebit);
        }
        assert.deepEqual(whole(await client.accounts.under('/psd2/v2').list(token)), {
          status: 200,
          body: { accounts: [account('150000.00', 2)] },
        });
        // A read without the PSU (no PSU-IP-Address) counts against the daily frequency, and still answers.
        assert.equal((await client.accounts.balances(accountId, token, { psuPresent: false })).status, 200);
      });

      test('card accounts: list, details, balances, transactions', async () => {
        const tokens = await client.authorizeScope(
          `AIS:${expectStatus(await client.consents.create(ais), 201, 'consent').consentId}`,
        );
        const list = await client.cardAccounts.list(tokens.access_token);
        assert.equal(list.status, 200);
        const [card] = list.body.cardAccounts;
        assert.equal(list.body.cardAccounts.length, 1);
        assert.deepEqual(
          [card!.cards, card!.creditLimit, card!.balances],
          [
            [{ maskedPan: '552233******4321', name: 'Mastercard' }],
            { currency: 'SEK', amount: '50000.00' },
            [
              { balanceType: 'booked', balanceAmount: { currency: 'SEK', amount: '-8450.00' } },
              { balanceType: 'available', balanceAmount: { currency: 'SEK', amount: '41550.00' } },
            ],
          ],
        );
        assert.deepEqual(whole(await client.cardAccounts.details(card!.accountId, tokens.access_token)), {
          status: 200,
          body: card,
        });
        assert.deepEqual(whole(await client.cardAccounts.balances(card!.accountId, tokens.access_token)), {
          status: 200,
          body: { accountId: card!.accountId, balances: card!.balances },
        });
        const transactions = await client.cardAccounts.transactions(card!.accountId, tokens.access_token);
        assert.equal(transactions.status, 200);
        assert.ok(
          transactions.body.transactions.some((t) => t.remittanceInformation === 'Kortköp'),
          'a card purchase',
        );
      });
    });

    test('the sandbox test data names the PSUs and their accounts', async () => {
      const data = expectOk(await client.sandboxTestData(), 'test data');
      const tolvan = data.psus.find((psu) => psu.psuId === '191212121212');
      assert.deepEqual(tolvan?.accounts[0]?.bban, ACCOUNTS.tolvan.bban);
    });
  });
}
