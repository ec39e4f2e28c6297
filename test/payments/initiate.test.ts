// Payment initiation: every body rule of every product, the headers, the products per country and
// customer type, the corporate headers, Idempotency-Key retries, and the decommissioned v1 API.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { EXAMPLE_CREDITORS } from '../../src/sandbox/test-data.ts';
import { insertCustomers } from '../../src/store/customers-repository.ts';
import { type Gateway, queryRows, sibling, startGateway } from '../helpers/gateway.ts';
import {
  BAD_REQUEST,
  call,
  errorBody,
  FORBIDDEN,
  KEY_REUSED,
  NOT_FOUND,
  statusAndBody,
  UNAUTHORIZED,
} from '../helpers/http.ts';
import {
  ACCOUNTS,
  british,
  CORPORATE_HEADERS,
  crossCurrency,
  domestic,
  otherBank,
  sepa,
} from '../helpers/payments.ts';

const SE_PRIVATE = '/psd2/se/v2/payments/private/single';
const SE_CORPORATE = '/psd2/se/v2/payments/corporate/single';
const GENERAL = '/psd2/v1/payments';

let gateway: Gateway;
let token: string;

before(async () => {
  gateway = await startGateway();
  token = await gateway.client.clientCredentialsToken();
});
after(() => gateway.close());

function headers(extra: Record<string, string> = {}): Record<string, string> {
  return {
    'x-gateway-client-id': gateway.sandboxApp.clientId,
    'tpp-request-id': randomUUID(),
    'tpp-transaction-id': randomUUID(),
    authorization: `Bearer ${token}`,
    ...extra,
  };
}

function initiate(path: string, body: unknown, extra: Record<string, string> = {}) {
  return call(gateway.app, 'POST', path, { headers: headers(extra), json: body });
}

async function expectRefused(
  path: string,
  body: unknown,
  expected: { status: number; body: unknown },
  extra = {},
) {
  assert.deepEqual(statusAndBody(await initiate(path, body, extra)), expected);
}

describe('body rules', () => {
  test('amount: more decimals than the currency has', () =>
    expectRefused(
      `${SE_PRIVATE}/handelsbanken-domestic-credit-transfer`,
      domestic({ instructedAmount: { currency: 'SEK', amount: '10.001' } }),
      BAD_REQUEST({
        code: 'FORMAT_ERROR',
        path: 'instructedAmount.amount',
        text: 'instructedAmount.amount SEK takes at most 2 decimals',
      }),
    ));

  test('amount: zero, negative, exponent and garbage are refused', async () => {
    for (const amount of ['0', '0.00', '-5', '1e3', 'ten', '', 0, -1]) {
      const answer = await initiate(
        `${SE_PRIVATE}/handelsbanken-domestic-credit-transfer`,
        domestic({ instructedAmount: { currency: 'SEK', amount } }),
      );
      assert.equal(answer.status, 400, `amount ${JSON.stringify(amount)}`);
      const body = answer.body as { tppMessages: { code: string; path: string }[] };
      assert.deepEqual(
        body.tppMessages.map((m) => [m.code, m.path]),
        [['FORMAT_ERROR', 'instructedAmount.amount']],
      );
    }
  });

  test('amount: a number is accepted and stored exactly', async () => {
    const answer = await initiate(
      `${SE_PRIVATE}/handelsbanken-domestic-credit-transfer`,
      domestic({ instructedAmount: { currency: 'SEK', amount: 0.1 } }),
    );
    assert.equal(answer.status, 200);
  });

  test('currency: a domestic Swedish transfer is in SEK', () =>
    expectRefused(
      `${SE_PRIVATE}/handelsbanken-domestic-credit-transfer`,
      domestic({ instructedAmount: { currency: 'EUR', amount: '1' } }),
      BAD_REQUEST({
        code: 'FORMAT_ERROR',
        path: 'instructedAmount.currency',
        text: 'handelsbanken-domestic-credit-transfer is paid in SEK',
      }),
    ));

  test('currency: an unknown currency', () =>
    expectRefused(
      `${SE_PRIVATE}/cross-currency-credit-transfer`,
      crossCurrency({ instructedAmount: { currency: 'XYZ', amount: '1' } }),
      BAD_REQUEST({
        code: 'FORMAT_ERROR',
        path: 'instructedAmount.currency',
        text: 'instructedAmount.currency is not a supported currency',
      }),
    ));

  test('Swedish account numbers are checked (kontonummer)', () =>
    expectRefused(
      `${SE_PRIVATE}/handelsbanken-domestic-credit-transfer`,
      domestic({ creditorAccount: { value: '6000123456788', accountType: 'BBAN' } }),
      BAD_REQUEST({
        code: 'FORMAT_ERROR',
        path: 'creditorAccount.value',
        text: 'creditorAccount.value is not a valid Swedish clearing number and account number',
      }),
    ));

  test('IBAN check digits are checked (ibantools)', () =>
    expectRefused(
      `${GENERAL}/sepa-credit-transfer`,
      sepa(ACCOUNTS.nl.iban!, { creditorAccount: { value: 'DE89370400440532013001', accountType: 'IBAN' } }),
      BAD_REQUEST({
        code: 'FORMAT_ERROR',
        path: 'creditorAccount.value',
        text: 'creditorAccount.value is not a valid IBAN',
      }),
      { country: 'NL' },
    ));

  test('BIC is checked', () =>
    expectRefused(
      `${SE_PRIVATE}/cross-currency-credit-transfer`,
      crossCurrency({ creditorAgent: { bic: 'CHAS-US' } }),
      BAD_REQUEST({
        code: 'FORMAT_ERROR',
        path: 'creditorAgent.bic',
        text: 'creditorAgent.bic is not a valid BIC',
      }),
    ));

  test('cross-currency needs the creditor agent BIC', () =>
    expectRefused(
      `${SE_PRIVATE}/cross-currency-credit-transfer`,
      crossCurrency({ creditorAgent: undefined }),
      BAD_REQUEST({
        code: 'FORMAT_ERROR',
        path: 'creditorAgent.bic',
        text: 'a cross-currency payment needs the BIC of the creditor agent',
      }),
    ));

  test('cross-currency is in another currency than the account', () =>
    expectRefused(
      `${SE_PRIVATE}/cross-currency-credit-transfer`,
      crossCurrency({ instructedAmount: { currency: 'SEK', amount: '5' } }),
      BAD_REQUEST({
        code: 'PAYMENT_FAILED',
        path: 'instructedAmount.currency',
        text: "a cross-currency payment is in another currency than the account's (SEK)",
      }),
    ));

  test('SEPA goes to a SEPA country', () =>
    expectRefused(
      `${GENERAL}/sepa-credit-transfer`,
      sepa(ACCOUNTS.nl.iban!, {
        creditorAccount: { value: 'BR1800360305000010009795493C1', accountType: 'IBAN' },
      }),
      BAD_REQUEST({
        code: 'PAYMENT_FAILED',
        path: 'creditorAccount.value',
        text: 'BR is not a SEPA country',
      }),
      { country: 'NL' },
    ));

  test('SEPA service level and charge bearer', () =>
    expectRefused(
      `${GENERAL}/sepa-credit-transfer`,
      sepa(ACCOUNTS.nl.iban!, {
        paymentTypeInformation: { serviceLevel: { code: 'NURG' } },
        chargeBearer: 'SHAR',
      }),
      BAD_REQUEST(
        {
          code: 'FORMAT_ERROR',
          path: 'paymentTypeInformation.serviceLevel.code',
          text: 'a SEPA credit transfer has service level SEPA',
        },
        { code: 'FORMAT_ERROR', path: 'chargeBearer', text: 'a SEPA credit transfer has charge bearer SLEV' },
      ),
      { country: 'NL' },
    ));

  test('creditor name at most 35 characters', () =>
    expectRefused(
      `${GENERAL}/sepa-credit-transfer`,
      sepa(ACCOUNTS.nl.iban!, { creditor: { name: 'x'.repeat(36) } }),
      BAD_REQUEST({
        code: 'FORMAT_ERROR',
        path: 'creditor.name',
        text: 'creditor.name must be 1 to 35 characters',
      }),
      { country: 'NL' },
    ));

  test('SEPA needs the creditor name', () =>
    expectRefused(
      `${GENERAL}/sepa-credit-transfer`,
      sepa(ACCOUNTS.nl.iban!, { creditor: undefined }),
      BAD_REQUEST({
        code: 'FORMAT_ERROR',
        path: 'creditor.name',
        text: "sepa-credit-transfer needs the creditor's name",
      }),
      { country: 'NL' },
    ));

  test('message length: 14 within the bank, 12 to another bank', async () => {
    await expectRefused(
      `${SE_PRIVATE}/handelsbanken-domestic-credit-transfer`,
      domestic({ remittanceInformationUnstructured: 'x'.repeat(15) }),
      BAD_REQUEST({
        code: 'FORMAT_ERROR',
        path: 'remittanceInformationUnstructured',
        text: 'the message of handelsbanken-domestic-credit-transfer is at most 14 characters',
      }),
    );
    await expectRefused(
      `${SE_PRIVATE}/other-bank-domestic-credit-transfer`,
      otherBank({
        remittanceInformation: { text: 'x'.repeat(13) },
        remittanceInformationUnstructured: undefined,
      }),
      BAD_REQUEST({
        code: 'FORMAT_ERROR',
        path: 'remittanceInformation.text',
        text: 'the message of other-bank-domestic-credit-transfer is at most 12 characters',
      }),
    );
    const ok = await initiate(
      `${SE_PRIVATE}/handelsbanken-domestic-credit-transfer`,
      domestic({ remittanceInformationUnstructured: 'å'.repeat(14) }),
    );
    assert.equal(ok.status, 200);
  });

  test('requestedExecutionDate: not in the past, a real date, at most a year ahead', async () => {
    const path = `${SE_PRIVATE}/handelsbanken-domestic-credit-transfer`;
    const answer = await initiate(path, domestic({ requestedExecutionDate: '2020-01-01' }));
    assert.equal(answer.status, 400);
    const message = (answer.body as { tppMessages: { code: string; path: string; text: string }[] })
      .tppMessages[0]!;
    assert.equal(message.code, 'EXECUTION_DATE_INVALID');
    assert.match(
      message.text,
      /^requestedExecutionDate 2020-01-01 is in the past \(today is \d{4}-\d{2}-\d{2}\)$/,
    );
    await expectRefused(
      path,
      domestic({ requestedExecutionDate: '2031-02-30' }),
      BAD_REQUEST({
        code: 'FORMAT_ERROR',
        path: 'requestedExecutionDate',
        text: 'requestedExecutionDate must be a date as YYYY-MM-DD',
      }),
    );
    const far = await initiate(path, domestic({ requestedExecutionDate: '2099-01-01' }));
    assert.equal(
      (far.body as { tppMessages: { code: string }[] }).tppMessages[0]!.code,
      'EXECUTION_DATE_INVALID',
    );
  });

  test('unknown fields are set aside and named in X-Ignored-Fields, missing ones named', async () => {
    const answer = await initiate(`${SE_PRIVATE}/handelsbanken-domestic-credit-transfer`, {
      ...domestic(),
      instructedAmmount: {},
      creditorAccount: undefined,
    });
    assert.deepEqual(
      statusAndBody(answer),
      BAD_REQUEST({ code: 'FORMAT_ERROR', path: 'creditorAccount', text: 'creditorAccount is required' }),
    );
    assert.equal(answer.headers['x-ignored-fields'], 'instructedAmmount');
  });

  test('a body that is not JSON, or not an object', async () => {
    const notJson = await call(gateway.app, 'POST', `${SE_PRIVATE}/handelsbanken-domestic-credit-transfer`, {
      headers: { ...headers(), 'content-type': 'application/json' },
      payload: '{"debtorAccount":',
    });
    assert.deepEqual(
      statusAndBody(notJson),
      BAD_REQUEST({ code: 'FORMAT_ERROR', text: 'the body is not valid JSON' }),
    );
    const array = await initiate(`${SE_PRIVATE}/handelsbanken-domestic-credit-transfer`, [1, 2]);
    assert.deepEqual(
      statusAndBody(array),
      BAD_REQUEST({ code: 'FORMAT_ERROR', text: 'the body must be object' }),
    );
    const form = await call(gateway.app, 'POST', `${SE_PRIVATE}/handelsbanken-domestic-credit-transfer`, {
      headers: { ...headers(), 'content-type': 'text/plain' },
      payload: 'hello',
    });
    assert.deepEqual(statusAndBody(form), {
      status: 415,
      body: errorBody(415, 'Unsupported Media Type', {
        code: 'UNSUPPORTED_MEDIA_TYPE',
        text: 'Content-Type must be application/json',
      }),
    });
  });
});

describe('other-bank-domestic-credit-transfer: the seven rules', () => {
  const path = `${SE_PRIVATE}/other-bank-domestic-credit-transfer`;
  test('1: in SEK', () =>
    expectRefused(
      path,
      otherBank({ instructedAmount: { currency: 'EUR', amount: '1' } }),
      BAD_REQUEST({
        code: 'FORMAT_ERROR',
        path: 'instructedAmount.currency',
        text: 'other-bank-domestic-credit-transfer is paid in SEK',
      }),
    ));
  test('3: not in a basket (only single payments exist on this path)', async () => {
    assert.equal((await initiate(path, otherBank())).status, 200);
  });
  test('4: no requestedExecutionDate', () =>
    expectRefused(
      path,
      otherBank({ requestedExecutionDate: '2099-01-01' }),
      BAD_REQUEST({
        code: 'PARAMETER_NOT_SUPPORTED',
        path: 'requestedExecutionDate',
        text: 'other-bank-domestic-credit-transfer cannot be future dated: send no requestedExecutionDate',
      }),
    ));
  test('5: BBAN on both sides', () =>
    expectRefused(
      path,
      otherBank({
        debtorAccount: { value: ACCOUNTS.tolvan.iban!, accountType: 'IBAN' },
        creditorAccount: { value: EXAMPLE_CREDITORS.germanIban, accountType: 'IBAN' },
      }),
      BAD_REQUEST(
        {
          code: 'FORMAT_ERROR',
          path: 'debtorAccount.accountType',
          text: 'other-bank-domestic-credit-transfer takes BBAN here',
        },
        {
          code: 'FORMAT_ERROR',
          path: 'creditorAccount.accountType',
          text: 'other-bank-domestic-credit-transfer takes BBAN here',
        },
      ),
    ));
  test("6: the creditor's clearing number is another bank's", () =>
    expectRefused(
      path,
      otherBank({ creditorAccount: { value: ACCOUNTS.agda.bban!, accountType: 'BBAN' } }),
      BAD_REQUEST({
        code: 'PAYMENT_FAILED',
        path: 'creditorAccount.value',
        text: "the creditor's clearing number belongs to this bank: use handelsbanken-domestic-credit-transfer",
      }),
    ));
  test('7: not from the account type that may not pay other banks', () =>
    expectRefused(
      path,
      otherBank({ debtorAccount: { value: ACCOUNTS.tolvanSavings.bban!, accountType: 'BBAN' } }),
      BAD_REQUEST({
        code: 'PAYMENT_FAILED',
        path: 'debtorAccount.value',
        text: 'payments to other banks cannot be made from this type of account',
      }),
    ));
  test('a clearing number given apart is accepted', async () => {
    const answer = await initiate(
      path,
      otherBank({ creditorAccount: { value: '1234560009', clearingNumber: '8327-9', accountType: 'BBAN' } }),
    );
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
  });
  test('handelsbanken-domestic refuses another bank as creditor', () =>
    expectRefused(
      `${SE_PRIVATE}/handelsbanken-domestic-credit-transfer`,
      domestic({ creditorAccount: { value: EXAMPLE_CREDITORS.sebBban, accountType: 'BBAN' } }),
      BAD_REQUEST({
        code: 'PAYMENT_FAILED',
        path: 'creditorAccount.value',
        text: 'the creditor account is at another bank: use other-bank-domestic-credit-transfer',
      }),
    ));
});

/** An unknown debtor account and one this request may not pay from answer alike (issue 37). */
const UNPAYABLE = BAD_REQUEST({
  code: 'PAYMENT_FAILED',
  path: 'debtorAccount.value',
  text: 'the debtor account is not one this request can pay from: an account at the bank of a private customer (without PSU-Corporate-ID) or of the corporate in PSU-Corporate-ID, and under Sweden v2 of the customer type in the path',
});

describe('debtor account', () => {
  test('must be an account at the bank', () =>
    expectRefused(
      `${SE_PRIVATE}/handelsbanken-domestic-credit-transfer`,
      domestic({ debtorAccount: { value: '6789123456002', accountType: 'BBAN' } }),
      UNPAYABLE,
    ));
  test('an account the bank opens is payable from at once: unknown accounts are not remembered', async () => {
    const body = domestic({ debtorAccount: { value: '6789123456118', accountType: 'BBAN' } });
    const path = `${SE_PRIVATE}/handelsbanken-domestic-credit-transfer`;
    assert.equal((await initiate(path, body)).status, 400);
    await insertCustomers(gateway.store.db, {
      psus: [],
      accounts: [
        {
          ...ACCOUNTS.tolvan,
          accountId: `new-${randomUUID()}`,
          bban: '6789123456118',
          iban: null,
          clearingNumber: '6789',
          name: 'Nytt konto',
          position: 9,
          balanceMinor: 1000,
        },
      ],
      cards: [],
    });
    const answer = await initiate(path, body);
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
  });
  test('its declared currency must be its currency', () =>
    expectRefused(
      `${SE_PRIVATE}/handelsbanken-domestic-credit-transfer`,
      domestic({ debtorAccount: { value: ACCOUNTS.tolvan.bban!, accountType: 'BBAN', currency: 'EUR' } }),
      BAD_REQUEST({
        code: 'FORMAT_ERROR',
        path: 'debtorAccount.currency',
        text: "the account's currency is SEK",
      }),
    ));
  test('must be held in the country of the call', () =>
    expectRefused(
      `${GENERAL}/sepa-credit-transfer`,
      sepa(ACCOUNTS.lu.iban!),
      BAD_REQUEST({
        code: 'PAYMENT_FAILED',
        path: 'debtorAccount.value',
        text: 'the account is held in LU, not NL',
      }),
      { country: 'NL' },
    ));
  test('BBAN is not taken for Dutch accounts', () =>
    expectRefused(
      `${GENERAL}/sepa-credit-transfer`,
      sepa(ACCOUNTS.nl.iban!, { debtorAccount: { value: '0254678912', accountType: 'BBAN' } }),
      BAD_REQUEST({
        code: 'FORMAT_ERROR',
        path: 'debtorAccount.accountType',
        text: 'BBAN is not taken for accounts in NL: use IBAN',
      }),
      { country: 'NL' },
    ));
  test('British domestic from a sort code and account number to a GB IBAN', async () => {
    const answer = await initiate(
      `${GENERAL}/british-domestic-credit-transfer`,
      british({ creditorAccount: { value: 'GB33BUKB20201555555555', accountType: 'IBAN' } }),
      { country: 'GB' },
    );
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    await expectRefused(
      `${GENERAL}/british-domestic-credit-transfer`,
      british({ creditorAccount: { value: EXAMPLE_CREDITORS.germanIban, accountType: 'IBAN' } }),
      BAD_REQUEST({
        code: 'PAYMENT_FAILED',
        path: 'creditorAccount.value',
        text: 'a British domestic payment goes to an account in GB',
      }),
      { country: 'GB' },
    );
  });
});

describe('products per country and customer', () => {
  test('an unknown product', () =>
    expectRefused(
      `${GENERAL}/instant-credit-transfer`,
      domestic(),
      NOT_FOUND({
        code: 'PRODUCT_UNKNOWN',
        path: 'paymentProduct',
        text: 'The path names no payment product of the bank',
      }),
      { country: 'SE' },
    ));
  test('initiation spells other-bank without an s', () =>
    expectRefused(
      `${SE_PRIVATE}/other-banks-domestic-credit-transfer`,
      otherBank(),
      NOT_FOUND({
        code: 'PRODUCT_UNKNOWN',
        path: 'paymentProduct',
        text: 'The path names no payment product of the bank; initiation spells it other-bank-domestic-credit-transfer',
      }),
    ));
  test('a product not offered in the country', () =>
    expectRefused(
      `${GENERAL}/british-domestic-credit-transfer`,
      british(),
      FORBIDDEN({ code: 'PRODUCT_INVALID', text: 'british-domestic-credit-transfer is not offered in SE' }),
      { country: 'SE' },
    ));
  test('sek-credit-transfer is basket-only', () =>
    expectRefused(
      `${SE_PRIVATE}/sek-credit-transfer`,
      domestic(),
      FORBIDDEN({
        code: 'PRODUCT_INVALID',
        text: 'sek-credit-transfer is available only in a signing basket',
      }),
    ));
  test('SEPA under Sweden v2 is for corporate customers only', () =>
    expectRefused(
      `${SE_PRIVATE}/sepa-credit-transfer`,
      sepa(ACCOUNTS.tolvan.iban!),
      FORBIDDEN({
        code: 'PRODUCT_INVALID',
        text: 'sepa-credit-transfer is not offered to private customers',
      }),
    ));
  test('a corporate account on the private path answers as an unknown account', () =>
    expectRefused(
      `${SE_PRIVATE}/handelsbanken-domestic-credit-transfer`,
      domestic({ debtorAccount: { value: ACCOUNTS.corporateSek.bban!, accountType: 'BBAN' } }),
      UNPAYABLE,
    ));
  test('a private account on the corporate path answers as an unknown account', () =>
    expectRefused(
      `${SE_CORPORATE}/handelsbanken-domestic-credit-transfer`,
      domestic(),
      UNPAYABLE,
      CORPORATE_HEADERS,
    ));
  test('an unknown customer type in the path', () =>
    expectRefused(
      '/psd2/se/v2/payments/business/single/handelsbanken-domestic-credit-transfer',
      domestic(),
      NOT_FOUND({
        code: 'RESOURCE_UNKNOWN',
        text: 'There is no endpoint for this customer type: use private or corporate',
      }),
    ));
});

describe('corporate headers', () => {
  const path = `${SE_CORPORATE}/handelsbanken-domestic-credit-transfer`;
  const body = domestic({ debtorAccount: { value: ACCOUNTS.corporateSek.bban!, accountType: 'BBAN' } });
  test('required on the corporate path', () =>
    expectRefused(
      path,
      body,
      BAD_REQUEST(
        { code: 'FORMAT_ERROR', path: 'PSU-Corporate-ID', text: 'header PSU-Corporate-ID is required' },
        {
          code: 'FORMAT_ERROR',
          path: 'PSU-Corporate-ID-Type',
          text: 'header PSU-Corporate-ID-Type is required',
        },
      ),
    ));
  test('10 digits and type BANK', () =>
    expectRefused(
      path,
      body,
      BAD_REQUEST(
        {
          code: 'FORMAT_ERROR',
          path: 'PSU-Corporate-ID',
          text: 'PSU-Corporate-ID must be a 10-digit organisation number',
        },
        { code: 'FORMAT_ERROR', path: 'PSU-Corporate-ID-Type', text: 'PSU-Corporate-ID-Type must be BANK' },
      ),
      { 'PSU-Corporate-ID': '556677-8899', 'PSU-Corporate-ID-Type': 'ORG' },
    ));
  test("another corporate's account answers as an unknown account", () =>
    expectRefused(path, body, UNPAYABLE, {
      'PSU-Corporate-ID': '5590001235',
      'PSU-Corporate-ID-Type': 'BANK',
    }));
  test("a corporate's account without them on the general API answers as an unknown account", () =>
    expectRefused(`${GENERAL}/handelsbanken-domestic-credit-transfer`, body, UNPAYABLE, { country: 'SE' }));
  test('the general API with them', async () => {
    const answer = await initiate(`${GENERAL}/handelsbanken-domestic-credit-transfer`, body, {
      country: 'SE',
      ...CORPORATE_HEADERS,
    });
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
  });
});

describe('headers', () => {
  const path = `${SE_PRIVATE}/handelsbanken-domestic-credit-transfer`;
  test('all missing: each named', async () => {
    const answer = await call(gateway.app, 'POST', `${GENERAL}/handelsbanken-domestic-credit-transfer`, {
      json: domestic(),
    });
    assert.deepEqual(
      statusAndBody(answer),
      BAD_REQUEST(
        { code: 'FORMAT_ERROR', path: 'X-Gateway-Client-Id', text: 'header X-Gateway-Client-Id is required' },
        { code: 'FORMAT_ERROR', path: 'TPP-Request-ID', text: 'header TPP-Request-ID is required' },
        { code: 'FORMAT_ERROR', path: 'TPP-Transaction-ID', text: 'header TPP-Transaction-ID is required' },
        { code: 'FORMAT_ERROR', path: 'Country', text: 'header Country is required' },
      ),
    );
  });
  test('Country must be a code the bank serves', async () => {
    await expectRefused(
      `${GENERAL}/sepa-credit-transfer`,
      sepa(ACCOUNTS.nl.iban!),
      BAD_REQUEST({
        code: 'FORMAT_ERROR',
        path: 'Country',
        text: 'header Country must be an ISO 3166-1 alpha-2 code',
      }),
      { country: 'nl' },
    );
    await expectRefused(
      `${GENERAL}/sepa-credit-transfer`,
      sepa(ACCOUNTS.nl.iban!),
      BAD_REQUEST({
        code: 'PARAMETER_NOT_SUPPORTED',
        path: 'Country',
        text: 'header Country: the bank offers this API in SE, GB, LU, NL',
      }),
      { country: 'DE' },
    );
  });
  test('an unknown app', () =>
    expectRefused(
      path,
      domestic(),
      UNAUTHORIZED({
        code: 'CLIENT_UNKNOWN',
        path: 'X-Gateway-Client-Id',
        text: 'X-Gateway-Client-Id names no registered app',
      }),
      { 'x-gateway-client-id': 'f'.repeat(32) },
    ));
  test('the app id under a configured alias header', async () => {
    const aliased = await sibling(gateway, { config: { clientIdHeaderAliases: ['x-ibm-client-id'] } });
    try {
      const { 'x-gateway-client-id': clientId, ...rest } = headers();
      const answer = await call(aliased.app, 'POST', path, {
        headers: { ...rest, 'x-ibm-client-id': clientId! },
        json: domestic(),
      });
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
    } finally {
      await aliased.close();
    }
  });
  test('no token, an unknown token, a token of another app', async () => {
    const { authorization: _, ...none } = headers();
    const missing = await call(gateway.app, 'POST', path, { headers: none, json: domestic() });
    assert.deepEqual(
      statusAndBody(missing),
      UNAUTHORIZED({
        code: 'TOKEN_INVALID',
        path: 'Authorization',
        text: 'An access token is required: Authorization: Bearer <token>',
      }),
    );
    assert.equal(missing.headers['www-authenticate'], 'Bearer realm="psd2-gateway"');
    await expectRefused(
      path,
      domestic(),
      UNAUTHORIZED({ code: 'TOKEN_UNKNOWN', text: 'The access token is not known' }),
      { authorization: 'Bearer nope' },
    );
    const other = await gateway.addApp();
    const otherToken = await other.clientCredentialsToken();
    await expectRefused(
      path,
      domestic(),
      UNAUTHORIZED({ code: 'TOKEN_INVALID', text: 'The access token was not issued to this app' }),
      { authorization: `Bearer ${otherToken}` },
    );
  });
  test('TPP-Request-ID and TPP-Transaction-ID are echoed, also on errors', async () => {
    const answer = await initiate(path, {}, { 'tpp-request-id': 'req-1', 'tpp-transaction-id': 'tx-1' });
    assert.equal(answer.status, 400);
    assert.equal(answer.headers['tpp-request-id'], 'req-1');
    assert.equal(answer.headers['tpp-transaction-id'], 'tx-1');
  });
});

describe('Idempotency-Key retries; TPP-Request-ID is a correlation id', () => {
  const path = `${SE_PRIVATE}/handelsbanken-domestic-credit-transfer`;
  const count = async () =>
    (await queryRows<{ n: number }>(gateway.store, sql`SELECT count(*)::int AS n FROM payments`))[0]!.n;

  test('one TPP-Request-ID on two initiations makes two payments', async () => {
    const ids = { 'tpp-request-id': 'constant-request-id', 'tpp-transaction-id': 'constant-transaction-id' };
    const first = await initiate(path, domestic(), ids);
    const second = await initiate(path, domestic(), ids);
    assert.deepEqual([first.status, second.status], [200, 200]);
    assert.notEqual(
      (first.body as { paymentId: string }).paymentId,
      (second.body as { paymentId: string }).paymentId,
    );
    assert.equal(second.headers['tpp-request-id'], 'constant-request-id');
  });

  test('the same request under the same key answers the first answer and creates nothing; quoted or bare', async () => {
    const key = randomUUID();
    const first = await initiate(path, domestic(), { 'idempotency-key': `"${key}"` });
    assert.equal(first.status, 200);
    const payments = await count();
    const second = await initiate(path, domestic(), {
      'idempotency-key': key,
      'tpp-transaction-id': 'another',
    });
    assert.deepEqual(statusAndBody(second), statusAndBody(first));
    assert.equal(await count(), payments);
  });

  test('another request under the same key is refused (422)', async () => {
    const key = `"${randomUUID()}"`;
    assert.equal((await initiate(path, domestic(), { 'idempotency-key': key })).status, 200);
    const payments = await count();
    await expectRefused(
      path,
      domestic({ instructedAmount: { currency: 'SEK', amount: '1.00' } }),
      {
        status: 422,
        body: KEY_REUSED,
      },
      { 'idempotency-key': key },
    );
    assert.equal(await count(), payments);
  });

  test('a malformed key is refused (400) without echoing it', async () => {
    for (const key of ['"unterminated', '""', 'two words', `"${'k'.repeat(256)}"`]) {
      await expectRefused(
        path,
        domestic(),
        {
          status: 400,
          body: errorBody(400, 'Bad Request', {
            code: 'FORMAT_ERROR',
            path: 'Idempotency-Key',
            text: 'header Idempotency-Key must be a Structured Field string ("..." of printable ASCII) or a bare value of visible ASCII, 1 to 255 characters',
          }),
        },
        { 'idempotency-key': key },
      );
    }
  });

  test('a refused request does not use up its key', async () => {
    const key = `"${randomUUID()}"`;
    assert.equal(
      (
        await initiate(path, domestic({ debtorAccount: { value: '6789123456002', accountType: 'BBAN' } }), {
          'idempotency-key': key,
        })
      ).status,
      400,
    );
    assert.equal((await initiate(path, domestic(), { 'idempotency-key': key })).status, 200);
  });

  test('the same key from another app is another request', async () => {
    const key = `"${randomUUID()}"`;
    const first = await initiate(path, domestic(), { 'idempotency-key': key });
    assert.equal(first.status, 200);
    const other = await gateway.addApp();
    const otherToken = await other.clientCredentialsToken();
    const answer = await initiate(path, domestic(), {
      'idempotency-key': key,
      'x-gateway-client-id': other.clientId,
      authorization: `Bearer ${otherToken}`,
    });
    assert.equal(answer.status, 200);
    assert.notEqual(
      (answer.body as { paymentId: string }).paymentId,
      (first.body as { paymentId: string }).paymentId,
    );
  });
});

test('Sweden v1 is gone, naming the v2 path', async () => {
  const answer = await initiate('/psd2/se/v1/payments/handelsbanken-domestic-credit-transfer', domestic());
  const v2 = '/psd2/se/v2/payments/{private|corporate}/single/handelsbanken-domestic-credit-transfer';
  assert.deepEqual(statusAndBody(answer), {
    status: 410,
    body: errorBody(410, 'Gone', {
      code: 'SERVICE_INVALID',
      path: v2,
      text: `Version 1 of the Swedish payment API was decommissioned on 15 November 2026: use ${v2}`,
    }),
  });
});
