// Live with every bank system external and nothing seeded (issue 37, point 1): the gateway's database
// starts empty (SEED_TEST_DATA=false), the core banking system is the HTTP stand-in of
// docs/core-banking-api.yaml with account ids of its own, PSUs log in at an OpenID Connect provider
// (oidc-provider) or sign with the national e-ID (the relying-party API v6 stand-in, mutual TLS), and
// rates come from an ECB file. A TPP onboards over mutual TLS; a customer only the bank knows
// authorizes payments (single by redirect, a basket by e-ID), which the bank books or rejects with its
// reason; a future-dated one is cancelled; the PSU consents to account information (v1 and v2),
// card accounts and a short-term consent; funds are confirmed. The gateway keeps reference rows only:
// ids, never the bank's customer data. On PGlite and on PostgreSQL.
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { DecoupledComplete, DecoupledInitAnswer, InitiationRequest } from '@psd2-gateway/client';
import { sql } from 'drizzle-orm';
import { createCa, issueQwac, issueServerCertificate } from '../../src/certificates/issue.ts';
import { DEFAULT_TIME_ZONE, loadConfig } from '../../src/config.ts';
import { dateIn } from '../../src/domain/dates.ts';
import { TEST_ACCOUNTS } from '../../src/sandbox/test-data.ts';
import { openStore } from '../../src/store/database/open.ts';
import { bankSystemSettings } from '../helpers/bank-settings.ts';
import { formField } from '../helpers/decoupled.ts';
import { createFreshDatabase, type FreshDatabase } from '../helpers/fresh-database.ts';
import { backends, queryRows, TEST_DATABASE_URL } from '../helpers/gateway.ts';
import { NOT_FOUND } from '../helpers/http.ts';
import { MtlsTppClient } from '../helpers/mtls-client.ts';
import { Agent, queryOf } from '../helpers/oidc.ts';
import { writeSigningKey } from '../helpers/signing-key.ts';
import { startCapturing } from '../helpers/start.ts';
import { type BankIdRp, startBankIdRp } from '../stand-ins/bankid-rp.ts';
import { type CoreBankingStandIn, startCoreBankingStandIn } from '../stand-ins/core-banking.ts';
import { BANK_ONLY, bankIdOf } from '../stand-ins/core-banking-book.ts';
import { type StandInProvider, startOidcProvider } from '../stand-ins/oidc-provider.ts';

const BERIT = BANK_ONLY.psu.psuId;
const { salary, savings, cardAccount } = BANK_ONLY;
const FX_FILE = new URL('../fx/fixtures/eurofxref-daily.xml', import.meta.url).pathname;
const REDIRECT_URI = 'https://tpp.example/callback';
const TPP_ID = 'SE-FINA-44059';
const WITHIN = 'handelsbanken-domestic-credit-transfer';
const OTHER_BANK = 'other-bank-domestic-credit-transfer';
/** Agda's account at the bank (the stand-in's sandbox customers), credited within the bank. */
const AGDA_BBAN = '6789555555550';

for (const backend of backends()) {
  describe(`live, every bank system external, nothing seeded (${backend})`, () => {
    let dir: string;
    let rp: BankIdRp;
    let bank: CoreBankingStandIn;
    let provider: StandInProvider;
    let fresh: FreshDatabase | undefined;
    let gatewayCa: string;
    let server: { url: string; close(): Promise<void> } | undefined;
    /** The TPP over mutual TLS, as the TPP (enrolment) and, once subscribed, as its app. */
    let tpp: MtlsTppClient;
    let app: MtlsTppClient;

    before(async () => {
      dir = await mkdtemp(join(tmpdir(), 'psd2-external-'));
      rp = await startBankIdRp();
      bank = await startCoreBankingStandIn();
      provider = await startOidcProvider({ berit: { claims: { personal_number: BERIT } } });
      const ca = await createCa();
      const serverCertificate = await issueServerCertificate(ca);
      const qwac = await issueQwac(ca, {
        organizationIdentifier: 'PSDSE-FINA-44059',
        organizationName: 'Budget Buddy AB',
        roles: ['PSP_PI', 'PSP_AI', 'PSP_IC'],
      });
      gatewayCa = ca.certificatePem;
      const files: Record<string, string> = {
        'ca.pem': ca.certificatePem,
        'server.pem': serverCertificate.certificatePem,
        'server.key': serverCertificate.keyPem,
      };
      for (const [name, content] of Object.entries(files)) await writeFile(join(dir, name), content);
      fresh = backend === 'postgres' ? await createFreshDatabase(TEST_DATABASE_URL!) : undefined;
      const config = loadConfig({
        MODE: 'live',
        AUDIT_KEY: 'test-audit-key-0123456789abcdef0123456789',
        NOTIFICATION_SIGNING_KEY: writeSigningKey(dir),
        PORT: '0',
        HOST: '127.0.0.1',
        LOG_LEVEL: 'warn',
        SCHEDULER_INTERVAL_MS: '0',
        SEED_TEST_DATA: 'false',
        ...(fresh === undefined ? { DATA_DIR: join(dir, 'db') } : { DATABASE_URL: fresh.url }),
        TLS_CERT: join(dir, 'server.pem'),
        TLS_KEY: join(dir, 'server.key'),
        TLS_CLIENT_CA: join(dir, 'ca.pem'),
        ...(await bankSystemSettings(dir, { rp, bank, provider }, FX_FILE)),
      });
      server = (await startCapturing(config)).server;
      await provider.registerClient(`${server.url}/psu/oidc/callback`);
      tpp = new MtlsTppClient(server.url, TPP_ID, REDIRECT_URI, { ca: gatewayCa, client: qwac });
    });
    after(async () => {
      await server?.close();
      await provider?.close();
      await bank?.close();
      await rp?.close();
      await fresh?.drop();
      await rm(dir, { recursive: true, force: true });
    });

    test('onboarding over mutual TLS: the TPP, an app, its products', async () => {
      const enrolled = await tpp.onboarding.enroll();
      assert.deepEqual([enrolled.status, enrolled.body], [201, { clientId: TPP_ID }]);
      const admin = await tpp.onboarding.adminToken(TPP_ID);
      assert.equal(admin.status, 200, JSON.stringify(admin.body));
      const adminToken = admin.body.access_token;
      const registered = await tpp.onboarding.registerApp(
        TPP_ID,
        adminToken,
        { name: 'Budget Buddy', description: 'Pays bills', oauthRedirectURI: REDIRECT_URI },
        'payments-se-private',
      );
      assert.equal(registered.status, 200, JSON.stringify(registered.body));
      app = tpp.as(registered.body.clientId);
      for (const product of ['payments', 'consents', 'accounts', 'card-accounts', 'funds-confirmations']) {
        const subscribed = await tpp.onboarding.subscribe(TPP_ID, adminToken, app.clientId, product);
        assert.equal(subscribed.status, 200, `${product}: ${JSON.stringify(subscribed.body)}`);
      }
    });

    /** A Swedish private payment from one of the bank-only customer's accounts. */
    function swedishPayment(
      product: string,
      debtorBban: string,
      amount: string,
      extra: Record<string, unknown> = {},
    ) {
      return {
        debtorAccount: { value: debtorBban, accountType: 'BBAN' },
        creditorAccount:
          product === WITHIN
            ? { value: AGDA_BBAN, accountType: 'BBAN' }
            : { value: '50001234501', accountType: 'BBAN' },
        instructedAmount: { currency: 'SEK', amount },
        creditor: { name: 'Sven Svensson' },
        remittanceInformationUnstructured: 'Faktura 12',
        ...extra,
      };
    }

    async function initiate(product: string, body: InitiationRequest): Promise<string> {
      const token = await app.clientCredentialsToken('PIS');
      const initiated = await app.initiate(token, {
        path: `/psd2/se/v2/payments/private/single/${product}`,
        body,
      });
      assert.equal(initiated.status, 200, JSON.stringify(initiated.body));
      const paymentId = initiated.body.paymentId;
      const links = (...pairs: [string, string, string][]) => ({
        authorization: pairs.map(([path, name, type]) => ({ href: `${server!.url}${path}`, name, type })),
      });
      assert.deepEqual(initiated.body, {
        paymentId,
        scaMethods: [
          {
            scaMethodType: 'REDIRECT',
            _links: links(
              ['/oauth2/authorize/1.0', 'authorize', 'application/json'],
              ['/oauth2/token/1.0', 'token', 'application/x-www-form-urlencoded'],
            ),
          },
          {
            scaMethodType: 'DECOUPLED',
            _links: links(['/decoupled/eid/initAuthorization/2.0', 'initAuthorization', 'application/json']),
          },
        ],
        transactionStatus: 'ACTC',
      });
      return paymentId;
    }

    /** The PSU's browser: the TPP's authorize link, the bank's login as `account`, our consent page, approve. */
    async function approveByRedirect(scope: string): Promise<string> {
      const agent = new Agent(gatewayCa);
      const atTpp = (url: URL) => url.href.startsWith(REDIRECT_URI);
      const landed = await agent.go(app.authorizationUrl(scope, 'tpp-state'));
      assert.equal(landed.answer?.status, 200, landed.answer?.text);
      assert.match(landed.answer!.text, /<h1>Bank login<\/h1>/);
      const consent = await agent.go(landed.url, { form: { account: 'berit' }, stop: atTpp });
      assert.equal(consent.answer?.status, 200, consent.answer?.text ?? consent.url.href);
      const text = consent.answer!.text;
      const approved = await agent.go(new URL('/psu/consent', consent.url), {
        form: { request: formField(text, 'request')!, csrf: formField(text, 'csrf')!, decision: 'approve' },
        stop: atTpp,
      });
      const answer = queryOf(approved.url);
      assert.deepEqual(Object.keys(answer).sort(), ['code', 'state'], approved.url.href);
      const token = await app.exchangeCode(scope, answer.code!);
      assert.equal(token.status, 200, JSON.stringify(token.body));
      return token.body.access_token;
    }

    /** The decoupled flow at the e-ID service: the PSU signs in the e-ID app (the stand-in's script). */
    async function approveByEid(scope: string, psuId?: string): Promise<DecoupledComplete> {
      rp.script(BERIT, { pendingCollects: 0, outcome: { signedBy: BERIT } });
      const started = await app.request<DecoupledInitAnswer>('POST', '/decoupled/eid/initAuthorization/2.0', {
        json: {
          client_id: app.clientId,
          scope,
          psu_client_ip: app.psuIpAddress,
          bisa_same_device: true,
          ...(psuId === undefined ? {} : { psu_id: psuId }),
        },
      });
      assert.equal(started.status, 200, JSON.stringify(started.body));
      assert.deepEqual(rp.orderOf(BERIT)?.personalNumber, BERIT);
      const final = await app.decoupled.waitForResult(started.body, { maxPolls: 5 });
      assert.equal(final.result, 'COMPLETE', JSON.stringify(final));
      return final as DecoupledComplete;
    }

    test('a single payment, authorized by redirect at the bank’s login, executed and booked at the bank', async () => {
      const paymentId = await initiate(OTHER_BANK, swedishPayment(OTHER_BANK, salary.bban, '125.50'));
      const psuToken = await approveByRedirect(`PIS:${paymentId}`);
      const executed = await app.execute(OTHER_BANK, paymentId, psuToken);
      assert.deepEqual([executed.status, executed.body], [200, { paymentId, transactionStatus: 'ACSC' }]);
      const status = await app.status(OTHER_BANK, paymentId, await app.clientCredentialsToken('PIS'), 'SE');
      assert.deepEqual([status.status, status.body], [200, { paymentId, transactionStatus: 'ACSC' }]);
      assert.equal(bank.book.bookings.get(paymentId), 1);
    });

    test('a basket, authorized with the e-ID, executed as one order at the bank', async () => {
      const token = await app.clientCredentialsToken('PIS');
      const initiated = await app.baskets.initiate(token, [
        {
          paymentProduct: 'sek-credit-transfer',
          tppPaymentReference: 'rent',
          ...swedishPayment(WITHIN, salary.bban, '300.00'),
        },
        {
          paymentProduct: 'sek-credit-transfer',
          tppPaymentReference: 'power',
          ...swedishPayment(OTHER_BANK, salary.bban, '45.00'),
        },
      ]);
      assert.equal(initiated.status, 200, JSON.stringify(initiated.body));
      const basketId = initiated.body.signingBaskedId;
      const [rent, power] = initiated.body.payments.map((payment) => payment.paymentId);
      assert.deepEqual(initiated.body, {
        payments: [
          { paymentId: rent, tppPaymentReference: 'rent' },
          { paymentId: power, tppPaymentReference: 'power' },
        ],
        signingBaskedId: basketId,
      });
      const signed = await approveByEid(`PIS:${basketId}`);
      const executed = await app.baskets.execute('sek-credit-transfer', basketId, signed.access_token);
      assert.deepEqual(
        [executed.status, executed.body],
        [200, { transactionStatus: 'ACSC', signingBasketId: basketId }],
      );
      for (const paymentId of [rent!, power!]) {
        const status = await app.status('sek-credit-transfer', paymentId, token, 'SE');
        assert.deepEqual([status.status, status.body], [200, { paymentId, transactionStatus: 'ACSC' }]);
        assert.equal(bank.book.bookings.get(paymentId), 1);
      }
    });

    test('what the account cannot pay: RJCT with the bank’s reason, nothing booked', async () => {
      const paymentId = await initiate(WITHIN, swedishPayment(WITHIN, savings.bban, '100.00'));
      const signed = await approveByEid(`PIS:${paymentId}`, BERIT);
      const rejected = {
        paymentId,
        transactionStatus: 'RJCT',
        reasonCode: 'AM04',
        reason: 'insufficient funds on the debtor account',
      };
      const executed = await app.execute(WITHIN, paymentId, signed.access_token);
      assert.deepEqual([executed.status, executed.body], [200, rejected]);
      const status = await app.status(WITHIN, paymentId, await app.clientCredentialsToken('PIS'), 'SE');
      assert.deepEqual([status.status, status.body], [200, rejected]);
      assert.equal(bank.book.bookings.get(paymentId), undefined);
    });

    test('a future-dated payment waits (ACCP), then is cancelled (CANC), never booked', async () => {
      const date = new Date(Date.now() + 7 * 86_400_000).toISOString().slice(0, 10);
      const paymentId = await initiate(
        WITHIN,
        swedishPayment(WITHIN, salary.bban, '75.00', { requestedExecutionDate: date }),
      );
      const psuToken = await approveByRedirect(`PIS:${paymentId}`);
      const executed = await app.execute(WITHIN, paymentId, psuToken);
      assert.deepEqual([executed.status, executed.body], [200, { paymentId, transactionStatus: 'ACCP' }]);
      const cancelled = await app.request('DELETE', `/psd2/v1/payments/${WITHIN}/${paymentId}`, {
        headers: app.tppHeaders(psuToken, { Country: 'SE' }),
      });
      assert.deepEqual([cancelled.status, cancelled.body], [200, { paymentId, transactionStatus: 'CANC' }]);
      const status = await app.status(WITHIN, paymentId, await app.clientCredentialsToken('PIS'), 'SE');
      assert.deepEqual([status.status, status.body], [200, { paymentId, transactionStatus: 'CANC' }]);
      assert.equal(bank.book.bookings.get(paymentId), undefined);
    });

    /** The bank-only customer's accounts after the payments above (125.50, 300.00 and 45.00 debited). */
    const SALARY_LEFT = '24529.50';
    const amount = (content: string) => ({ content, currency: 'SEK' });
    const ACCOUNT_FIELDS = [
      { account: salary, name: 'Lönekonto', left: SALARY_LEFT },
      { account: savings, name: 'Buffertkonto', left: '50.00' },
    ] as const;
    function debit(content: string) {
      const today = dateIn(new Date(), DEFAULT_TIME_ZONE);
      return {
        amount: amount(content),
        transactionDate: today,
        valueDate: today,
        creditDebit: 'DEBITED',
        status: 'BOOKED',
        bookingDate: today,
        ledgerDate: today,
        creditorName: 'Sven Svensson',
        debtorName: 'Berit Bankkund',
        remittanceInformation: 'Faktura 12',
      };
    }

    test('account information (v1 and v2) and card accounts, for a consent the PSU approved at the bank’s login', async () => {
      const token = await app.clientCredentialsToken('AIS');
      const created = await app.consents.create(token, { headers: { 'PSU-ID': BERIT } });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      assert.equal(created.body.consentStatus, 'received');
      const psuToken = await approveByRedirect(`AIS:${created.body.consentId}`);

      const v1 = await app.accounts.list(psuToken);
      assert.deepEqual(v1.status, 200);
      assert.deepEqual(v1.body, {
        accounts: ACCOUNT_FIELDS.map(({ account, name, left }) => ({
          accountId: account.accountId,
          currency: 'SEK',
          accountType: 'CACC',
          name,
          ownerName: 'Berit Bankkund',
          _links: {
            transactions: { href: `${server!.url}/psd2/v1/accounts/${account.accountId}/transactions` },
          },
          iban: account.iban,
          bban: account.bban,
          clearingNumber: '6000',
          bic: 'HANDSESS',
          balances: [
            { amount: amount(left), balanceType: 'booked' },
            { amount: amount(left), balanceType: 'available' },
          ],
        })),
      });
      const balances = await app.accounts.balances(salary.accountId, psuToken);
      assert.deepEqual(
        [balances.status, balances.body],
        [
          200,
          {
            accountId: salary.accountId,
            balances: [
              { amount: amount(SALARY_LEFT), balanceType: 'booked' },
              { amount: amount(SALARY_LEFT), balanceType: 'available' },
            ],
          },
        ],
      );
      // Newest first: the basket's two payments (booked together, in no order of the TPP's), then the first.
      const statement = {
        accountId: salary.accountId,
        transactions: [debit('300.00'), debit('45.00'), debit('125.50')],
      };
      const basketSorted = (body: unknown) => {
        const { accountId, transactions } = body as { accountId: string; transactions: { amount: object }[] };
        const byAmount = (a: { amount: object }, b: { amount: object }) =>
          JSON.stringify(a.amount) < JSON.stringify(b.amount) ? -1 : 1;
        return {
          accountId,
          transactions: [...transactions.slice(0, 2).sort(byAmount), ...transactions.slice(2)],
        };
      };
      const transactions = await app.accounts.transactions(salary.accountId, psuToken);
      assert.deepEqual([transactions.status, basketSorted(transactions.body)], [200, statement]);
      const someoneElses = await app.accounts.balances(bankIdOf(TEST_ACCOUNTS[0]!.accountId), psuToken);
      // Another customer's account answers as one the bank does not have (no existence oracle).
      assert.deepEqual(
        { status: someoneElses.status, body: someoneElses.body },
        NOT_FOUND({ code: 'RESOURCE_UNKNOWN', text: 'There is no such account' }),
      );

      const v2 = app.accounts.under('/psd2/v2');
      const list2 = await v2.list(psuToken);
      assert.deepEqual(
        [list2.status, list2.body],
        [
          200,
          {
            accounts: ACCOUNT_FIELDS.map(({ account, name, left }) => ({
              accountId: account.accountId,
              currency: 'SEK',
              accountType: 'CACC',
              name,
              ownerName: 'Berit Bankkund',
              _links: {
                transactions: { href: `${server!.url}/psd2/v2/accounts/${account.accountId}/transactions` },
              },
              iban: account.iban,
              bban: account.bban.slice(4),
              clearingNumber: '6000',
              bic: 'HANDSESS',
              balances: [
                { amount: amount(left), balanceType: 'booked' },
                { amount: amount(left), balanceType: 'AVAILABLE_AMOUNT' },
              ],
            })),
          },
        ],
      );
      const transactions2 = await v2.transactions(salary.accountId, psuToken);
      assert.deepEqual([transactions2.status, basketSorted(transactions2.body)], [200, statement]);

      const cardBalances = [
        { balanceType: 'booked', balanceAmount: { currency: 'SEK', amount: '-1250.00' } },
        { balanceType: 'available', balanceAmount: { currency: 'SEK', amount: '18750.00' } },
      ];
      const cards = await app.cardAccounts.list(psuToken);
      assert.deepEqual(
        [cards.status, cards.body],
        [
          200,
          {
            cardAccounts: [
              {
                accountId: cardAccount.cardAccountId,
                cards: [{ maskedPan: '552288******7890', name: 'Mastercard' }],
                currency: 'SEK',
                product: 'Handelsbanken Mastercard',
                creditLimit: { currency: 'SEK', amount: '20000.00' },
                balances: cardBalances,
              },
            ],
          },
        ],
      );
      const cardBalance = await app.cardAccounts.balances(cardAccount.cardAccountId, psuToken);
      assert.deepEqual(
        [cardBalance.status, cardBalance.body],
        [200, { accountId: cardAccount.cardAccountId, balances: cardBalances }],
      );
    });

    test('funds confirmation by IBAN and by card, against the bank', async () => {
      const token = await app.clientCredentialsToken('PIS');
      const confirm = async (body: unknown) => {
        const answer = await app.request('POST', '/psd2/v1/funds-confirmations', {
          headers: app.tppHeaders(token),
          json: body,
        });
        return [answer.status, answer.body];
      };
      const sek = (value: string) => ({ currency: 'SEK', amount: value });
      const card = BANK_ONLY.creditCard.cardNumber;
      assert.deepEqual(
        await confirm({ account: { iban: salary.iban }, instructedAmount: sek(SALARY_LEFT) }),
        [200, { fundsAvailable: true }],
      );
      assert.deepEqual(await confirm({ account: { iban: savings.iban }, instructedAmount: sek('50.01') }), [
        200,
        { fundsAvailable: false },
      ]);
      assert.deepEqual(await confirm({ cardNumber: card, instructedAmount: sek('18750.00') }), [
        200,
        { fundsAvailable: true },
      ]);
      assert.deepEqual(await confirm({ cardNumber: card, instructedAmount: sek('18750.01') }), [
        200,
        { fundsAvailable: false },
      ]);
    });

    test('a short-term consent approved at the bank’s login: the accounts with balances and cards', async () => {
      const token = await app.clientCredentialsToken('PIS');
      const created = await app.request<{ consentId: string; consentStatus: string }>(
        'POST',
        '/psd2/se/v2/payments/private/accounts/shorttermconsents',
        { headers: app.tppHeaders(token), json: { access: 'ALL_ACCOUNTS' } },
      );
      assert.equal(created.status, 201, JSON.stringify(created.body));
      assert.equal(created.body.consentStatus, 'received');
      const psuToken = await approveByRedirect(`PIS:${created.body.consentId}`);
      const read = await app.request('GET', '/psd2/se/v2/payments/private/accounts', {
        headers: app.tppHeaders(psuToken),
      });
      const cards: Record<string, unknown[]> = {
        [salary.accountId]: [{ maskedPan: '457173******3456', name: 'Debit card' }],
      };
      assert.deepEqual(
        [read.status, read.body],
        [
          200,
          {
            accounts: ACCOUNT_FIELDS.map(({ account, name, left }) => ({
              accountId: account.accountId,
              currency: 'SEK',
              accountType: 'CACC',
              name,
              ownerName: 'Berit Bankkund',
              balances: [
                { amount: amount(left), balanceType: 'booked' },
                { amount: amount(left), balanceType: 'available' },
              ],
              cards: cards[account.accountId] ?? [],
              iban: account.iban,
              bban: account.bban,
              clearingNumber: '6000',
              bic: 'HANDSESS',
            })),
          },
        ],
      );
    });

    test('the contract was kept both ways, and the gateway holds ids only of the bank’s customers', async () => {
      assert.deepEqual(bank.violations, []);
      await server!.close();
      server = undefined;
      const store =
        fresh === undefined
          ? await openStore({ dataDir: join(dir, 'db') })
          : await openStore({ databaseUrl: fresh.url });
      try {
        const rows = (query: string) => queryRows(store, sql.raw(query));
        // Berit only, whose payments, consents and tokens these are: asking for Tolvan's account under
        // Berit's consent asks the bank nothing and leaves no row.
        const idOnly = { name: null, customer_type: null, corporate_id: null, reference: true };
        assert.deepEqual(
          await rows('SELECT psu_id, name, customer_type, corporate_id, reference FROM psus ORDER BY psu_id'),
          [{ psu_id: BERIT, ...idOnly }],
        );
        assert.deepEqual(
          await rows(
            `SELECT account_id, psu_id, country, currency, iban, bban, clearing_number, bic, account_type,
                    name, owner_name, position, reference
               FROM accounts ORDER BY account_id`,
          ),
          [
            { ...salary, psuId: BERIT },
            { ...savings, psuId: BERIT },
          ]
            .map((account) => ({
              account_id: account.accountId,
              psu_id: account.psuId,
              country: null,
              currency: null,
              iban: null,
              bban: null,
              clearing_number: null,
              bic: null,
              account_type: null,
              name: null,
              owner_name: null,
              position: null,
              reference: true,
            }))
            .sort((a, b) => (a.account_id < b.account_id ? -1 : 1)),
        );
        assert.deepEqual(await rows('SELECT count(*)::int AS n FROM card_accounts'), [{ n: 0 }]);
        assert.deepEqual(await rows('SELECT count(*)::int AS n FROM cards'), [{ n: 0 }]);
      } finally {
        await store.close();
      }
    });
  });
}
