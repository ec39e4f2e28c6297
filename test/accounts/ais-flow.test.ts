// Account information end to end over real HTTP: a consent (scope AIS client token), the PSU's
// authorization of AIS:<consentId> (redirect, decoupled, live login), accounts, balances and
// transactions from the ledger (an executed payment on both sides), refresh tokens, a deleted consent
// refused, the daily frequency without the PSU, expiry, the GB API, and every bad input.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { TppClient } from '@psd2-gateway/client';
import { sql } from 'drizzle-orm';
import { DEFAULT_TIME_ZONE } from '../../src/config.ts';
import { addDays, addMonths, startOfDay } from '../../src/domain/dates.ts';
import { expectedAccount } from '../helpers/accounts.ts';
import { initDecoupled, postLink } from '../helpers/decoupled.ts';
import { bankDate, type Gateway, manualClock, queryRows, startGateway } from '../helpers/gateway.ts';
import {
  BAD_REQUEST,
  errorBody,
  expectedScaMethods,
  FORBIDDEN,
  NOT_FOUND,
  UNAUTHORIZED,
} from '../helpers/http.ts';
import { ACCOUNTS, domestic } from '../helpers/payments.ts';
import { livePsuToken, openAuthorize, post, redirectQuery } from '../helpers/psu-pages.ts';

const AGDA = '198112289874';
const DAY = 86_400_000;

const whole = (answer: { status: number; body: unknown }) => ({ status: answer.status, body: answer.body });

/** A consent as created, and the PSU's tokens after the sandbox's redirect flow. */
async function consentedTokens(
  client: TppClient,
  aisToken: string,
  options: Parameters<TppClient['createConsent']>[1] = {},
) {
  const created = await client.createConsent(aisToken, options);
  assert.equal(created.status, 201, JSON.stringify(created.body));
  const consentId = created.body.consentId;
  const tokens = await client.authorizeScope(`AIS:${consentId}`);
  return { consentId, tokens };
}

function account(index: keyof typeof ACCOUNTS, url: string, balance?: string, prefix = '/psd2/v1') {
  return expectedAccount(ACCOUNTS[index], url, { ...(balance === undefined ? {} : { balance }), prefix });
}

interface Transaction {
  amount: { content: string; currency: string };
  bookingDate?: string;
  transactionDate: string;
  valueDate: string;
  creditDebit: string;
  creditorName?: string;
  debtorName?: string;
  remittanceInformation?: string;
  status: string;
}

describe('account information in the sandbox', () => {
  const time = manualClock();
  let gateway: Gateway;
  let client: TppClient;
  let ais: string;
  let today: string;
  before(async () => {
    gateway = await startGateway({ clock: time.clock });
    client = gateway.client;
    ais = await client.clientCredentialsToken('AIS');
    today = bankDate(time.clock());
  });
  after(() => gateway.close());

  test('consent, redirect authorization, accounts with balances, one account, balances', async () => {
    const created = await client.createConsent(ais);
    assert.equal(created.status, 201);
    const consentId = created.body.consentId;
    assert.deepEqual(created.body, {
      consentId,
      consentStatus: 'received',
      scaMethods: expectedScaMethods(gateway.url, true),
    });
    const received = await client.read(`/psd2/v1/consents/${consentId}/status`, ais);
    assert.deepEqual(whole(received), { status: 200, body: { consentStatus: 'received' } });

    const tokens = await client.authorizeScope(`AIS:${consentId}`);
    assert.match(tokens.refresh_token!, /^[A-Za-z0-9_-]{43}$/);
    assert.deepEqual(whole(await client.read(`/psd2/v1/consents/${consentId}`, tokens.access_token)), {
      status: 200,
      body: {
        consentId,
        consentStatus: 'valid',
        access: 'ALL_ACCOUNTS',
        validUntil: addDays(today, 180),
        frequencyPerDay: 4,
      },
    });

    const list = await client.read('/psd2/v1/accounts', tokens.access_token);
    assert.deepEqual(whole(list), {
      status: 200,
      body: {
        accounts: [
          account('tolvan', gateway.url, '12500000.00'),
          account('tolvanSavings', gateway.url, '12500000.00'),
        ],
      },
    });
    const bare = await client.read('/psd2/v1/accounts?withBalance=false', tokens.access_token);
    assert.deepEqual(bare.body, {
      accounts: [account('tolvan', gateway.url), account('tolvanSavings', gateway.url)],
    });
    const one = `/psd2/v1/accounts/${ACCOUNTS.tolvan.accountId}`;
    assert.deepEqual(whole(await client.read(one, tokens.access_token)), {
      status: 200,
      body: account('tolvan', gateway.url),
    });
    assert.deepEqual(whole(await client.read(`${one}?withBalance=true`, tokens.access_token)), {
      status: 200,
      body: account('tolvan', gateway.url, '12500000.00'),
    });
    assert.deepEqual(whole(await client.read(`${one}/balances`, tokens.access_token)), {
      status: 200,
      body: {
        accountId: ACCOUNTS.tolvan.accountId,
        balances: account('tolvan', gateway.url, '12500000.00').balances,
      },
    });
  });

  test('transactions: months of history, and an executed payment on both sides', async () => {
    const tolvan = await consentedTokens(client, ais);
    const agda = await consentedTokens(client, ais, { headers: { 'PSU-ID': AGDA } });
    const path = (id: string, from: string) => `/psd2/v1/accounts/${id}/transactions?dateFrom=${from}`;
    const history = await client.read<{ accountId: string; transactions: Transaction[] }>(
      path(ACCOUNTS.tolvan.accountId, addDays(today, -100)),
      tolvan.tokens.access_token,
    );
    assert.equal(history.status, 200);
    assert.equal(history.body.accountId, ACCOUNTS.tolvan.accountId);
    const salaries = history.body.transactions.filter(
      (t) => t.creditorName === 'Tolvan Tolvansson' && t.debtorName === 'Arbetsgivaren AB',
    );
    assert.ok(salaries.length >= 3, 'a salary each month');
    for (const salary of salaries) {
      assert.deepEqual(salary, {
        amount: { content: '32500.00', currency: 'SEK' },
        bookingDate: salary.bookingDate,
        ledgerDate: salary.bookingDate,
        transactionDate: salary.transactionDate,
        valueDate: salary.bookingDate,
        creditDebit: 'CREDITED',
        creditorName: 'Tolvan Tolvansson',
        debtorName: 'Arbetsgivaren AB',
        remittanceInformation: 'Lön',
        status: 'BOOKED',
      });
      assert.equal(salary.bookingDate!.slice(8), '25');
    }
    const dates = history.body.transactions.map((t) => t.bookingDate!);
    assert.deepEqual(dates, [...dates].sort().reverse(), 'newest first');
    assert.ok(
      dates.every((date) => date >= addDays(today, -100) && date < today),
      `every line booked from ${addDays(today, -100)} to before ${today}: ${dates.at(-1)} .. ${dates[0]}`,
    );

    const initiated = await client.initiate(await client.clientCredentialsToken(), {
      path: '/psd2/se/v2/payments/private/single/handelsbanken-domestic-credit-transfer',
      body: domestic(),
    });
    assert.equal(
      (await client.authorizeAndExecute('handelsbanken-domestic-credit-transfer', initiated.body.paymentId))
        .body.transactionStatus,
      'ACCC',
    );
    const paid = await client.read<{ transactions: Transaction[] }>(
      path(ACCOUNTS.tolvan.accountId, today),
      tolvan.tokens.access_token,
    );
    assert.deepEqual(whole(paid), {
      status: 200,
      body: {
        accountId: ACCOUNTS.tolvan.accountId,
        transactions: [
          {
            amount: { content: '125.50', currency: 'SEK' },
            bookingDate: today,
            ledgerDate: today,
            transactionDate: today,
            valueDate: today,
            creditDebit: 'DEBITED',
            creditorName: 'Agda Andersson',
            debtorName: 'Tolvan Tolvansson',
            remittanceInformation: 'Hyra mars',
            status: 'BOOKED',
          },
        ],
      },
    });
    const received = await client.read<{ transactions: Transaction[] }>(
      path(ACCOUNTS.agda.accountId, today),
      agda.tokens.access_token,
    );
    assert.deepEqual(received.body.transactions, [
      { ...paid.body.transactions[0]!, creditDebit: 'CREDITED' },
    ]);
    const balance = await client.read<{ balances: { amount: { content: string } }[] }>(
      `/psd2/v1/accounts/${ACCOUNTS.agda.accountId}/balances`,
      agda.tokens.access_token,
    );
    assert.equal(balance.body.balances[0]!.amount.content, '12500125.50');

    // A future-dated payment waits as PENDING until its date.
    const later = addDays(today, 5);
    const dated = await client.initiate(await client.clientCredentialsToken(), {
      path: '/psd2/se/v2/payments/private/single/handelsbanken-domestic-credit-transfer',
      body: domestic({
        requestedExecutionDate: later,
        instructedAmount: { currency: 'SEK', amount: '10.00' },
      }),
    });
    assert.equal(
      (await client.authorizeAndExecute('handelsbanken-domestic-credit-transfer', dated.body.paymentId)).body
        .transactionStatus,
      'ACCP',
    );
    const pending = await client.read<{ transactions: Transaction[] }>(
      `${path(ACCOUNTS.tolvan.accountId, today)}&dateTo=${later}`,
      tolvan.tokens.access_token,
    );
    assert.deepEqual(pending.body.transactions[0], {
      amount: { content: '10.00', currency: 'SEK' },
      transactionDate: today,
      valueDate: later,
      creditDebit: 'DEBITED',
      debtorName: 'Tolvan Tolvansson',
      remittanceInformation: 'Hyra mars',
      status: 'PENDING',
    });
    assert.equal(pending.body.transactions.length, 2);
  });

  test('refresh token reads on; a deleted consent is refused and its refresh token too', async () => {
    const { consentId, tokens } = await consentedTokens(client, ais);
    const refreshed = await client.request<{ access_token: string }>('POST', '/refresh/oauth2/token/1.0', {
      form: {
        grant_type: 'refresh_token',
        refresh_token: tokens.refresh_token!,
        client_id: client.clientId,
      },
    });
    assert.equal(refreshed.status, 200);
    assert.equal((await client.read('/psd2/v1/accounts', refreshed.body.access_token)).status, 200);

    const deleted = await client.request('DELETE', `/psd2/v1/consents/${consentId}`, {
      headers: client.tppHeaders(ais),
    });
    assert.equal(deleted.status, 204);
    assert.equal(deleted.body, '');
    const again = await client.request('DELETE', `/psd2/v1/consents/${consentId}`, {
      headers: client.tppHeaders(ais),
    });
    assert.equal(again.status, 204, 'deleting twice is harmless');
    assert.deepEqual(whole(await client.read(`/psd2/v1/consents/${consentId}/status`, ais)), {
      status: 200,
      body: { consentStatus: 'terminatedByTpp' },
    });
    const refused = UNAUTHORIZED({ code: 'CONSENT_INVALID', text: 'The consent was ended by the TPP' });
    assert.deepEqual(whole(await client.read('/psd2/v1/accounts', refreshed.body.access_token)), refused);
    assert.deepEqual(whole(await client.read('/psd2/v1/card-accounts', tokens.access_token)), refused);
    // The refresh token is not rotated: the client keeps its first one, which now reads nothing.
    const refresh = await client.request('POST', '/oauth2/token/1.0', {
      form: {
        grant_type: 'refresh_token',
        refresh_token: tokens.refresh_token!,
        client_id: client.clientId,
      },
    });
    assert.deepEqual(whole(refresh), {
      status: 400,
      body: {
        error: 'invalid_grant',
        error_description: 'the consent of the refresh token is no longer valid',
      },
    });
  });

  test('at most frequencyPerDay reads a day per resource without the PSU; unlimited with the PSU; a new day starts over', async () => {
    const { tokens } = await consentedTokens(client, ais, {
      body: { access: 'ALL_ACCOUNTS', frequencyPerDay: 2 },
    });
    const token = tokens.access_token;
    const alone = { psuPresent: false };
    assert.equal((await client.read('/psd2/v1/accounts', token, alone)).status, 200);
    assert.equal((await client.read('/psd2/v1/accounts', token, alone)).status, 200);
    assert.deepEqual(whole(await client.read('/psd2/v1/accounts', token, alone)), {
      status: 429,
      body: errorBody(429, 'Too Many Requests', {
        code: 'ACCESS_EXCEEDED',
        text: 'The consent allows 2 reads a day of this resource without the PSU (send PSU-IP-Address when the PSU is present)',
      }),
    });
    assert.equal((await client.read('/psd2/v1/accounts', token)).status, 200, 'the PSU is present');
    const balances = `/psd2/v1/accounts/${ACCOUNTS.tolvan.accountId}/balances`;
    assert.equal((await client.read(balances, token, alone)).status, 200, 'another resource counts apart');
    time.advance(DAY);
    assert.equal((await client.read('/psd2/v1/accounts', token, alone)).status, 200, 'a new day');
    ais = await client.clientCredentialsToken('AIS');
  });

  test('a consent ends with its last valid day: CONSENT_EXPIRED, status expired', async () => {
    const day = bankDate(time.clock());
    const { consentId, tokens } = await consentedTokens(client, ais, {
      body: { access: 'ALL_ACCOUNTS', validUntil: day },
    });
    assert.equal((await client.read('/psd2/v1/accounts', tokens.access_token)).status, 200);
    // The day ends at the bank's midnight (Europe/Stockholm), not UTC's: valid up to its last millisecond.
    const end = startOfDay(addDays(day, 1), DEFAULT_TIME_ZONE).getTime();
    time.advance(end - 1 - time.clock().getTime());
    assert.equal((await client.read('/psd2/v1/accounts', tokens.access_token)).status, 200);
    ais = await client.clientCredentialsToken('AIS');
    assert.deepEqual(whole(await client.read(`/psd2/v1/consents/${consentId}`, ais)), {
      status: 200,
      body: {
        consentId,
        consentStatus: 'valid',
        access: 'ALL_ACCOUNTS',
        validUntil: day,
        frequencyPerDay: 4,
      },
    });
    time.advance(1);
    assert.deepEqual(
      whole(await client.read('/psd2/v1/accounts', tokens.access_token)),
      UNAUTHORIZED({ code: 'CONSENT_EXPIRED', text: 'The consent has expired' }),
    );
    assert.deepEqual((await client.read(`/psd2/v1/consents/${consentId}/status`, ais)).body, {
      consentStatus: 'expired',
    });
    today = bankDate(time.clock());
  });

  test('card accounts: masked PANs, credit limit, what is owed and what is left, transactions', async () => {
    const { tokens } = await consentedTokens(client, ais);
    const cardAccount = {
      accountId: 'b7c8d9e0-0000-4000-8000-000000000001',
      cards: [{ maskedPan: '552233******4321', name: 'Mastercard' }],
      currency: 'SEK',
      product: 'Handelsbanken Mastercard',
      creditLimit: { currency: 'SEK', amount: '50000.00' },
      balances: [
        { balanceType: 'booked', balanceAmount: { currency: 'SEK', amount: '-8450.00' } },
        { balanceType: 'available', balanceAmount: { currency: 'SEK', amount: '41550.00' } },
      ],
    };
    assert.deepEqual(whole(await client.read('/psd2/v1/card-accounts', tokens.access_token)), {
      status: 200,
      body: { cardAccounts: [cardAccount] },
    });
    const path = `/psd2/v1/card-accounts/${cardAccount.accountId}`;
    assert.deepEqual(whole(await client.read(path, tokens.access_token)), { status: 200, body: cardAccount });
    assert.deepEqual(whole(await client.read(`${path}/balances`, tokens.access_token)), {
      status: 200,
      body: { accountId: cardAccount.accountId, balances: cardAccount.balances },
    });
    const transactions = await client.read<{ transactions: Transaction[] }>(
      `${path}/transactions?dateFrom=${addDays(today, -60)}`,
      tokens.access_token,
    );
    assert.equal(transactions.status, 200);
    assert.ok(
      transactions.body.transactions.length > 5,
      `${transactions.body.transactions.length} card account lines`,
    );
    assert.ok(
      transactions.body.transactions.some(
        (t) => t.creditDebit === 'DEBITED' && t.remittanceInformation === 'Kortköp',
      ),
      'a card purchase, debited',
    );
    assert.ok(
      transactions.body.transactions.some(
        (t) => t.creditDebit === 'CREDITED' && t.remittanceInformation === 'Kortfaktura',
      ),
      'a card bill paid, credited',
    );
    assert.deepEqual(
      whole(
        await client.read('/psd2/v1/card-accounts/b7c8d9e0-0000-4000-8000-000000000002', tokens.access_token),
      ),
      NOT_FOUND({ code: 'RESOURCE_UNKNOWN', text: 'There is no such card account' }),
    );
    assert.deepEqual(
      whole(await client.read(`/psd2/v1/card-accounts/${randomUUID()}/balances`, tokens.access_token)),
      NOT_FOUND({ code: 'RESOURCE_UNKNOWN', text: 'There is no such card account' }),
    );
  });

  test('the GB API: its own consents (redirect only), British accounts only; tokens do not cross APIs', async () => {
    const created = await client.createConsent(ais, { prefix: '/psd2/gb/v1' });
    assert.deepEqual(created.body, {
      consentId: created.body.consentId,
      consentStatus: 'received',
      scaMethods: expectedScaMethods(gateway.url, false),
    });
    const tokens = await client.authorizeScope(`AIS:${created.body.consentId}`);
    assert.deepEqual(whole(await client.read('/psd2/gb/v1/accounts', tokens.access_token)), {
      status: 200,
      body: { accounts: [account('gb', gateway.url, '100000.00', '/psd2/gb/v1')] },
    });
    assert.deepEqual(
      whole(await client.read('/psd2/v1/accounts', tokens.access_token)),
      UNAUTHORIZED({
        code: 'CONSENT_INVALID',
        text: 'The consent was given for the GB accounts API, not the general accounts API',
      }),
    );
    const general = await consentedTokens(client, ais);
    assert.deepEqual(
      whole(await client.read('/psd2/gb/v1/accounts', general.tokens.access_token)),
      UNAUTHORIZED({
        code: 'CONSENT_INVALID',
        text: 'The consent was given for the general accounts API, not the GB accounts API',
      }),
    );
    assert.deepEqual(
      whole(await client.read(`/psd2/v1/consents/${created.body.consentId}`, ais)),
      FORBIDDEN({ code: 'CONSENT_UNKNOWN', text: 'The consent is not one of this app' }),
    );
  });

  test('decoupled authorization of a consent: COMPLETE with a refresh token', async () => {
    const created = await client.createConsent(ais, { headers: { 'PSU-ID': AGDA } });
    const init = await initDecoupled(gateway, {
      client_id: client.clientId,
      scope: `AIS:${created.body.consentId}`,
      psu_client_ip: '192.0.2.7',
      bisa_same_device: true,
    });
    assert.equal(init.status, 200, JSON.stringify(init.body));
    // The e-ID shows the PSU the consent's last day: 180 days from the bank's today, by default.
    const [order] = await queryRows<{ text: string }>(
      gateway.store,
      sql`SELECT visible_text AS text FROM eid_orders WHERE personal_number = ${AGDA} ORDER BY created_at DESC LIMIT 1`,
    );
    assert.equal(
      order?.text,
      `Share your accounts, balances, card accounts and transactions until ${addDays(bankDate(time.clock()), 180)}`,
    );
    const poll = await postLink(
      gateway,
      (init.body as { _links: { token: { href: string } } })._links.token.href,
    );
    const body = poll.body as { result: string; access_token: string; refresh_token?: string };
    assert.equal(body.result, 'COMPLETE');
    assert.match(body.refresh_token ?? '', /^[A-Za-z0-9_-]{43}$/);
    const list = await client.read<{ accounts: { accountId: string }[] }>(
      '/psd2/v1/accounts',
      body.access_token,
    );
    assert.deepEqual(
      list.body.accounts.map((a) => a.accountId),
      [ACCOUNTS.agda.accountId],
    );
  });

  test('a consent for a PSU-ID the bank does not know is made as any other, and nobody approves it', async () => {
    const known = await client.createConsent(ais, { headers: { 'PSU-ID': AGDA } });
    const unknown = await client.createConsent(ais, { headers: { 'PSU-ID': '190001019999' } });
    const withoutId = (answer: typeof known) => ({
      ...whole(answer),
      body: { ...answer.body, consentId: 'id' },
    });
    assert.deepEqual(withoutId(unknown), withoutId(known));
    assert.equal(known.status, 201);
    const scope = `AIS:${unknown.body.consentId}`;
    assert.deepEqual(Object.fromEntries(await client.authorize(scope, 'st')), {
      error: 'access_denied',
      error_description: 'the PSU cannot authorize this',
      state: 'st',
    });
    const init = await initDecoupled(gateway, {
      client_id: client.clientId,
      scope,
      psu_client_ip: '192.0.2.7',
      bisa_same_device: true,
    });
    // The e-ID order starts for whoever the consent names, customer or not (init tells nothing); the
    // sandbox's e-ID completes at once, and only then is the signer found to be nobody the bank knows.
    assert.equal(init.status, 200, JSON.stringify(init.body));
    const href = (init.body as { _links: { token: { href: string } } })._links.token.href;
    assert.deepEqual(whole(await postLink(gateway, href)), {
      status: 400,
      body: { error: 'mbid_error', error_description: 'the PSU cannot sign this with the e-ID' },
    });
    assert.deepEqual(whole(await client.read(`/psd2/v1/consents/${unknown.body.consentId}/status`, ais)), {
      status: 200,
      body: { consentStatus: 'received' },
    });
  });

  test('bad inputs: each refused with its code', async () => {
    const pis = await client.clientCredentialsToken();
    assert.deepEqual(
      whole(await client.createConsent(pis)),
      UNAUTHORIZED({
        code: 'TOKEN_INVALID',
        text: 'This call needs a client-credentials token with scope AIS',
      }),
    );
    const cases: [unknown, Record<string, string>, { status: number; body: unknown }][] = [
      [
        { access: 'SOME_ACCOUNTS' },
        {},
        BAD_REQUEST({ code: 'FORMAT_ERROR', path: 'access', text: 'access must be equal to constant' }),
      ],
      [
        { access: 'ALL_ACCOUNTS', validUntil: addDays(today, -1) },
        {},
        BAD_REQUEST({
          code: 'FORMAT_ERROR',
          path: 'validUntil',
          text: 'validUntil must be a date from today to 180 days ahead',
        }),
      ],
      [
        { access: 'ALL_ACCOUNTS', validUntil: addDays(today, 181) },
        {},
        BAD_REQUEST({
          code: 'FORMAT_ERROR',
          path: 'validUntil',
          text: 'validUntil must be a date from today to 180 days ahead',
        }),
      ],
      [
        { access: 'ALL_ACCOUNTS', validUntil: '2026-02-30' },
        {},
        BAD_REQUEST({
          code: 'FORMAT_ERROR',
          path: 'validUntil',
          text: 'validUntil must be an ISO date (YYYY-MM-DD)',
        }),
      ],
      [
        { access: 'ALL_ACCOUNTS', frequencyPerDay: 5 },
        {},
        BAD_REQUEST({ code: 'FORMAT_ERROR', path: 'frequencyPerDay', text: 'frequencyPerDay must be <= 4' }),
      ],
    ];
    // Bodies the typed createConsent refuses to compile: sent as they are.
    for (const [body, headers, expected] of cases) {
      const json = { headers: client.tppHeaders(ais, headers), json: body };
      assert.deepEqual(
        whole(await client.request('POST', '/psd2/v1/consents', json)),
        expected,
        JSON.stringify(body),
      );
    }

    const { consentId, tokens } = await consentedTokens(client, ais);
    const token = tokens.access_token;
    assert.deepEqual(
      whole(await client.read('/psd2/v1/accounts', ais)),
      UNAUTHORIZED({
        code: 'TOKEN_INVALID',
        text: 'This call needs the PSU access token of an account consent',
      }),
    );
    const tx = `/psd2/v1/accounts/${ACCOUNTS.tolvan.accountId}/transactions`;
    const reads: [string, { status: number; body: unknown }][] = [
      [
        `/psd2/v1/accounts/${ACCOUNTS.agda.accountId}`,
        NOT_FOUND({ code: 'RESOURCE_UNKNOWN', text: 'There is no such account' }),
      ],
      [
        `/psd2/v1/accounts/${ACCOUNTS.gb.accountId}/balances`,
        NOT_FOUND({ code: 'RESOURCE_UNKNOWN', text: 'There is no such account' }),
      ],
      [
        `/psd2/v1/accounts/${randomUUID()}`,
        NOT_FOUND({ code: 'RESOURCE_UNKNOWN', text: 'There is no such account' }),
      ],
      // Without dateFrom the default window ends at dateTo, which must then be within 15 months.
      [
        `${tx}?dateTo=${addDays(addMonths(today, -15), -1)}`,
        BAD_REQUEST({
          code: 'FORMAT_ERROR',
          path: 'dateTo',
          text: `dateTo must not be before ${addMonths(today, -15)} (15 months back)`,
        }),
      ],
      [
        `${tx}?dateFrom=2026-13-01`,
        BAD_REQUEST({
          code: 'FORMAT_ERROR',
          path: 'dateFrom',
          text: 'dateFrom must be an ISO date (YYYY-MM-DD)',
        }),
      ],
      [
        `${tx}?dateFrom=${today}&dateTo=${addDays(today, -1)}`,
        BAD_REQUEST({ code: 'FORMAT_ERROR', path: 'dateFrom', text: 'dateFrom must not be after dateTo' }),
      ],
      [
        `${tx}?dateFrom=${addDays(today, -480)}`,
        BAD_REQUEST({
          code: 'FORMAT_ERROR',
          path: 'dateFrom',
          text: `dateFrom must not be before ${addMonths(today, -15)} (15 months back)`,
        }),
      ],
      [
        `${tx}?dateFrom=${today}&page=2`,
        BAD_REQUEST({ code: 'FORMAT_ERROR', path: 'page', text: 'page is not a field of this request' }),
      ],
    ];
    for (const [path, expected] of reads)
      assert.deepEqual(whole(await client.read(path, token)), expected, path);

    const other = await gateway.addApp();
    const otherAis = await other.clientCredentialsToken('AIS');
    assert.deepEqual(
      whole(await other.read(`/psd2/v1/consents/${consentId}`, otherAis)),
      FORBIDDEN({ code: 'CONSENT_UNKNOWN', text: 'The consent is not one of this app' }),
    );
    assert.deepEqual(
      whole(await other.read('/psd2/v1/accounts', token)),
      UNAUTHORIZED({ code: 'TOKEN_INVALID', text: 'The access token was not issued to this app' }),
    );
    // A consent authorized already cannot be authorized again.
    const query = await client.authorize(`AIS:${consentId}`, 'again');
    assert.deepEqual(Object.fromEntries(query), {
      error: 'invalid_scope',
      error_description: 'the consent is not awaiting authorization',
      state: 'again',
    });
  });
});

describe('account information live: the PSU logs in; only the PSU named may approve', () => {
  let gateway: Gateway;
  before(async () => {
    gateway = await startGateway({ config: { mode: 'live' } });
  });
  after(() => gateway.close());

  test('the named PSU approves and reads; another PSU is refused', async () => {
    const client = gateway.client;
    const ais = await client.clientCredentialsToken('AIS');
    const created = await client.createConsent(ais, { headers: { 'PSU-ID': AGDA } });
    const scope = `AIS:${created.body.consentId}`;
    const token = await livePsuToken(gateway, client, scope, AGDA);
    const list = await client.read<{ accounts: { accountId: string }[] }>('/psd2/v1/accounts', token);
    assert.equal(list.status, 200);
    assert.deepEqual(
      list.body.accounts.map((a) => a.accountId),
      [ACCOUNTS.agda.accountId],
    );

    const second = await client.createConsent(ais, { headers: { 'PSU-ID': AGDA } });
    const login = await openAuthorize(gateway, {
      response_type: 'code',
      scope: `AIS:${second.body.consentId}`,
      client_id: client.clientId,
      state: 'live',
      redirect_uri: client.redirectUri,
    });
    const refused = await post(gateway, '/psu/login', login, {
      psu_id: '191212121212',
      password: 'open-sesame-2026',
    });
    assert.deepEqual(redirectQuery(refused), {
      error: 'access_denied',
      error_description: 'the consent was asked for another PSU',
      state: 'live',
    });
  });
});
