// "Every operation": each operation of the document at least once, in an order that makes each answer
// what it is meant to (earlier requests set the variables later ones use: tokens, ids, codes, and the
// accounts of the sandbox's test data), each with a test of its status and of the body a client reads.
// Requests meant to show an error assert that exact error.
import {
  apiErrorIs,
  clientToken,
  equals,
  expectField,
  type Flow,
  hasFields,
  json,
  redirectAuthorization,
  type Step,
  set,
  textIncludes,
} from './steps.ts';

const DOMESTIC = 'handelsbanken-domestic-credit-transfer';
const SEPA = 'sepa-credit-transfer';
const BRITISH = 'british-domestic-credit-transfer';

/** A domestic payment from Tolvan's account (the document's example), to cancel or to pay. */
const domesticBody = { example: 'domestic' } as const;

function consentSteps(suffix: '' | 'Gb' | 'Lu', prefix: string, psuId?: string): Step[] {
  const scope = `AIS:{{consentId${suffix}}}`;
  return [
    {
      name: `Ask for a consent (${prefix})`,
      operationId: `createConsent${suffix}`,
      auth: 'aisToken',
      ...(psuId === undefined ? {} : { headers: { 'PSU-ID': psuId } }),
      body: { example: 'allAccounts' },
      status: 201,
      after: [
        json,
        hasFields(['consentId', 'consentStatus', 'scaMethods']),
        expectField('consentStatus', ['received']),
        set(`consentId${suffix}`, 'body.consentId'),
      ],
    },
    {
      name: `Read the consent's status before approval (${prefix})`,
      operationId: `getConsentStatus${suffix}`,
      auth: 'aisToken',
      path: { consentId: `{{consentId${suffix}}}` },
      status: 200,
      after: [json, equals('body', { consentStatus: 'received' })],
    },
    ...redirectAuthorization(scope, { token: `psuToken${suffix}`, refresh: true }),
    {
      name: `Read the consent (${prefix})`,
      operationId: `getConsent${suffix}`,
      auth: 'aisToken',
      path: { consentId: `{{consentId${suffix}}}` },
      status: 200,
      after: [
        json,
        hasFields(['consentId', 'consentStatus', 'access', 'validUntil', 'frequencyPerDay']),
        equals('body.consentId', `pm.collectionVariables.get('consentId${suffix}')`, true),
        expectField('consentStatus', ['valid']),
      ],
    },
  ];
}

/** The consent of an API deleted at the end of its steps (204, no body). */
function deleteConsentStep(suffix: '' | 'Gb' | 'Lu'): Step {
  return {
    name: `Delete the consent${suffix === '' ? '' : ` (${suffix.toUpperCase()})`}`,
    operationId: `deleteConsent${suffix}`,
    auth: 'aisToken',
    path: { consentId: `{{consentId${suffix}}}` },
    status: 204,
  };
}

function accountSteps(suffix: '' | 'Gb' | 'Lu' | 'V2', prefix: string, token: string): Step[] {
  const id = `{{accountId${suffix}}}`;
  return [
    {
      name: `List the accounts (${prefix})`,
      operationId: `listAccounts${suffix}`,
      auth: token,
      status: 200,
      after: [
        json,
        "pm.test('accounts are listed, each with its id, currency and name', () => { pm.expect(body.accounts).to.be.an('array').that.is.not.empty; body.accounts.forEach((account) => pm.expect(account).to.include.keys('accountId', 'currency', 'name')); });",
        set(`accountId${suffix}`, 'body.accounts[0].accountId'),
      ],
    },
    {
      name: `Read an account with its balances (${prefix})`,
      operationId: `getAccount${suffix}`,
      auth: token,
      path: { accountId: id },
      query: { withBalance: 'true' },
      status: 200,
      after: [
        json,
        equals('body.accountId', `pm.collectionVariables.get('accountId${suffix}')`, true),
        hasFields(['accountId', 'currency', 'name', 'ownerName', 'balances']),
      ],
    },
    {
      name: `Read the balances (${prefix})`,
      operationId: `getBalances${suffix}`,
      auth: token,
      path: { accountId: id },
      status: 200,
      after: [
        json,
        "pm.test('balances with amount and type', () => { pm.expect(body.balances).to.be.an('array').that.is.not.empty; body.balances.forEach((balance) => pm.expect(balance).to.include.keys('balanceType')); });",
      ],
    },
    {
      name: `Read the transactions (${prefix})`,
      operationId: `getTransactions${suffix}`,
      auth: token,
      path: { accountId: id },
      status: 200,
      after: [json, "pm.test('transactions', () => pm.expect(body.transactions).to.be.an('array'));"],
    },
  ];
}

function paymentSteps(options: {
  readonly name: string;
  readonly initiate: Omit<Step, 'name' | 'status' | 'auth'>;
  readonly suffix: '' | 'SeV2' | 'Gb' | 'Lu';
  readonly product: string;
  readonly settled: string;
  readonly country?: string;
}): Step[] {
  const { suffix, product } = options;
  const path = { paymentProduct: product, paymentId: '{{paymentId}}' };
  const headers: Record<string, string> = options.country === undefined ? {} : { Country: options.country };
  const initiate: Step = {
    ...options.initiate,
    name: `Initiate (${options.name})`,
    auth: 'token',
    status: 200,
    after: [
      json,
      hasFields(['paymentId', 'transactionStatus', 'scaMethods']),
      expectField('transactionStatus', ['ACTC']),
      set('paymentId', 'body.paymentId'),
    ],
  };
  return [
    initiate,
    {
      name: `Cancel before authorization (${options.name})`,
      operationId: `cancelPayment${suffix}`,
      auth: 'token',
      path,
      status: 200,
      after: [
        json,
        equals(
          'body',
          "{ paymentId: pm.collectionVariables.get('paymentId'), transactionStatus: 'CANC' }",
          true,
        ),
      ],
    },
    { ...initiate, name: `Initiate again (${options.name})` },
    {
      name: `Read the status (${options.name})`,
      operationId: `getPaymentStatus${suffix}`,
      auth: 'token',
      headers,
      path,
      status: 200,
      after: [
        json,
        equals(
          'body',
          "{ paymentId: pm.collectionVariables.get('paymentId'), transactionStatus: 'ACTC' }",
          true,
        ),
      ],
    },
    ...redirectAuthorization('PIS:{{paymentId}}', { operation: 'authorizeRedirect' }),
    {
      name: `Execute (${options.name})`,
      operationId: `executePayment${suffix}`,
      auth: 'psuToken',
      path,
      status: 200,
      after: [
        json,
        equals('body.paymentId', "pm.collectionVariables.get('paymentId')", true),
        expectField('transactionStatus', [options.settled]),
      ],
    },
  ];
}

function seV1(method: string, operationId: string): Step {
  return {
    name: `Sweden v1 is gone (${method})`,
    operationId,
    path: { '*': 'payments/domestic' },
    ...(method === 'GET' || method === 'DELETE' ? {} : { body: { json: {} } }),
    status: 410,
    after: [json, apiErrorIs(410, 'Gone', 'SERVICE_INVALID')],
  };
}

/** Reads the accounts and creditors the later requests use from the sandbox's test data. */
const TEST_DATA: Step = {
  name: "The sandbox's test data (accounts used below)",
  operationId: 'getSandboxTestData',
  status: 200,
  after: [
    json,
    "pm.test('the app is this one', () => pm.expect(body.app.clientId).to.equal(pm.collectionVariables.get('clientId')));",
    hasFields(['app', 'psuPassword', 'psus', 'cardAccounts', 'cards', 'creditors', 'scenarios']),
    'const accountOf = (psuId, currency) => body.psus.find((psu) => psu.psuId === psuId).accounts.find((account) => account.currency === currency);',
    "const corporate = body.psus.find((psu) => psu.type === 'corporate');",
    set('gbAccount', "accountOf('gb-3001', 'GBP').bban"),
    set('luIban', "accountOf('lu-2001', 'EUR').iban"),
    set('corporateBban', "corporate.accounts.find((account) => account.currency === 'SEK').bban"),
    set('corporateId', 'corporate.corporateId'),
    set(
      'gbCreditor',
      "body.creditors.find((creditor) => creditor.product === 'british-domestic-credit-transfer').account",
    ),
    set(
      'sepaCreditor',
      "body.creditors.find((creditor) => creditor.product === 'sepa-credit-transfer').account",
    ),
  ],
};

const CORPORATE_HEADERS = { 'PSU-Corporate-ID': '{{corporateId}}', 'PSU-Corporate-ID-Type': 'BANK' };

function decoupled(version: 'v2' | 'v1'): Step[] {
  const v1 = version === 'v1';
  const start = (name: string): Step => ({
    name,
    operationId: v1 ? 'startDecoupledAuthorizationV1' : 'startDecoupledAuthorization',
    body: {
      json: v1
        ? {
            psu_id: '191212121212',
            psu_id_type: '1',
            psu_client_ip: '{{psuIpAddress}}',
            scope: 'PIS:{{paymentId}}',
            client_id: '{{clientId}}',
          }
        : {
            client_id: '{{clientId}}',
            scope: 'PIS:{{paymentId}}',
            psu_client_ip: '{{psuIpAddress}}',
            bisa_same_device: true,
          },
    },
    status: 200,
    after: [
      json,
      hasFields(['auto_start_token', 'sleep_time', '_links']),
      set('sessionId', 'decodeURIComponent(/sessionId=([^&]+)/.exec(body._links.token.href)[1])'),
    ],
  });
  const initiate: Step = {
    name: `Initiate a payment to authorize (decoupled ${version})`,
    operationId: 'initiateSeV2Payment',
    auth: 'token',
    path: { customerType: 'private', paymentProduct: DOMESTIC },
    body: domesticBody,
    status: 200,
    after: [json, expectField('transactionStatus', ['ACTC']), set('paymentId', 'body.paymentId')],
  };
  return [
    initiate,
    start(`Start (${version})`),
    {
      name: `Cancel the session (${version})`,
      operationId: v1 ? 'cancelDecoupledAuthorizationV1' : 'cancelDecoupledAuthorization',
      query: { sessionId: '{{sessionId}}' },
      body: { json: {} },
      status: 204,
      after: ["pm.test('no body', () => pm.expect(pm.response.text()).to.equal(''));"],
    },
    start(`Start again (${version})`),
    {
      name: `Poll: COMPLETE at once in the sandbox (${version})`,
      operationId: v1 ? 'pollDecoupledTokenV1' : 'pollDecoupledToken',
      query: { sessionId: '{{sessionId}}' },
      body: { json: {} },
      status: 200,
      after: [
        json,
        expectField('result', ['COMPLETE']),
        hasFields(['access_token', 'token_type', 'expires_in']),
        set('psuToken', 'body.access_token'),
      ],
    },
  ];
}

const LOGIN = { psu_id: '191212121212', password: 'none' };

/** A PSU page's form posted without the page's CSRF cookie (as no browser would): its exact error page. */
function pageWithoutCsrf(name: string, operationId: string, fields: Record<string, string>): Step {
  return {
    name,
    operationId,
    body: { form: { request: 'none', csrf: 'none', ...fields } },
    status: 400,
    after: [textIncludes('This page is no longer valid')],
  };
}

/** The folders of "Every operation", in the order they run. */
export const EVERY_OPERATION: readonly Flow[] = [
  {
    name: 'Service',
    description: 'The service itself: its index, documents, health and metrics.',
    steps: [
      {
        name: 'The index',
        operationId: 'getIndex',
        status: 200,
        after: [json, hasFields(['service', 'version', 'mode', 'links']), equals('body.mode', 'sandbox')],
      },
      {
        name: 'The OpenAPI document (JSON)',
        operationId: 'getOpenApiJson',
        status: 200,
        after: [json, "pm.test('OpenAPI 3', () => pm.expect(body.openapi).to.match(/^3\\./));"],
      },
      {
        name: 'The OpenAPI document (YAML)',
        operationId: 'getOpenApiYaml',
        status: 200,
        after: [textIncludes('openapi: 3.')],
      },
      {
        name: 'Health',
        operationId: 'getHealth',
        status: 200,
        after: [json, expectField('status', ['ok'])],
      },
      {
        name: 'Readiness',
        operationId: 'getReadiness',
        status: 200,
        after: [json, expectField('status', ['ok'])],
      },
      {
        name: 'Liveness',
        operationId: 'getLiveness',
        status: 200,
        after: [json, expectField('status', ['ok'])],
      },
      {
        name: 'Metrics (Prometheus text)',
        operationId: 'getMetrics',
        status: 200,
        after: [textIncludes('# TYPE')],
      },
      {
        name: 'Notification signing keys (JWKS)',
        operationId: 'getNotificationKeys',
        status: 200,
        after: [
          json,
          equals('body.keys.map((key) => [key.kty, key.crv, key.alg, key.use])[0]', [
            'EC',
            'P-256',
            'ES256',
            'sig',
          ]),
        ],
      },
    ],
  },
  {
    name: 'Sandbox',
    description:
      'The sandbox page, its test data (read first: later requests use its accounts) and collection.',
    steps: [
      TEST_DATA,
      {
        name: 'The sandbox page',
        operationId: 'getSandboxPage',
        status: 200,
        after: [textIncludes('Scenarios')],
      },
      {
        name: 'This collection',
        operationId: 'getSandboxCollection',
        status: 200,
        after: [
          json,
          "pm.test('with this sandbox app', () => pm.expect(body.variable.find((variable) => variable.key === 'clientId').value).to.equal(pm.collectionVariables.get('clientId')));",
        ],
      },
      {
        name: 'The callback page (where the sandbox redirects)',
        operationId: 'getSandboxCallback',
        query: { code: 'example', state: 'collection' },
        status: 200,
        after: [textIncludes('example')],
      },
    ],
  },
  {
    name: 'Account information',
    description:
      'Consents (general, GB, LU), approved in the redirect flow, then every account and card-account read; the refresh token; deletion.',
    steps: [
      clientToken('AIS', 'aisToken'),
      ...consentSteps('', 'general'),
      {
        name: 'Refresh the access token',
        operationId: 'getTokenRefresh',
        body: {
          form: { grant_type: 'refresh_token', refresh_token: '{{refreshToken}}', client_id: '{{clientId}}' },
        },
        status: 200,
        after: [
          json,
          hasFields(['access_token', 'token_type', 'expires_in']),
          "pm.test('no new refresh token', () => pm.expect(body).not.to.have.property('refresh_token'));",
          set('psuToken', 'body.access_token'),
        ],
      },
      ...accountSteps('', 'general', 'psuToken'),
      ...accountSteps('V2', 'v2', 'psuToken'),
      {
        name: 'List the card accounts',
        operationId: 'listCardAccounts',
        auth: 'psuToken',
        status: 200,
        after: [
          json,
          "pm.test('card accounts are listed', () => pm.expect(body.cardAccounts).to.be.an('array').that.is.not.empty);",
          set('cardAccountId', 'body.cardAccounts[0].accountId'),
        ],
      },
      {
        name: 'Read a card account',
        operationId: 'getCardAccount',
        auth: 'psuToken',
        path: { accountId: '{{cardAccountId}}' },
        status: 200,
        after: [
          json,
          equals('body.accountId', "pm.collectionVariables.get('cardAccountId')", true),
          hasFields(['accountId', 'currency', 'cards', 'creditLimit', 'balances']),
        ],
      },
      {
        name: "Read a card account's balances",
        operationId: 'getCardAccountBalances',
        auth: 'psuToken',
        path: { accountId: '{{cardAccountId}}' },
        status: 200,
        after: [
          json,
          "pm.test('balances', () => pm.expect(body.balances).to.be.an('array').that.is.not.empty);",
        ],
      },
      {
        name: "Read a card account's transactions",
        operationId: 'getCardAccountTransactions',
        auth: 'psuToken',
        path: { accountId: '{{cardAccountId}}' },
        status: 200,
        after: [json, "pm.test('transactions', () => pm.expect(body.transactions).to.be.an('array'));"],
      },
      deleteConsentStep(''),
      ...consentSteps('Gb', 'GB'),
      ...accountSteps('Gb', 'GB', 'psuTokenGb'),
      deleteConsentStep('Gb'),
      ...consentSteps('Lu', 'LU'),
      ...accountSteps('Lu', 'LU', 'psuTokenLu'),
      deleteConsentStep('Lu'),
    ],
  },
  {
    name: 'Payments',
    description:
      'Each payment API: initiate, cancel (before authorization), initiate again, status, authorize (the /redirect alias), execute; Sweden v1 answers 410.',
    steps: [
      clientToken('PIS'),
      ...paymentSteps({
        name: 'general API, Sweden',
        initiate: {
          operationId: 'initiatePayment',
          path: { paymentProduct: DOMESTIC },
          headers: { Country: 'SE' },
          body: domesticBody,
        },
        suffix: '',
        product: DOMESTIC,
        settled: 'ACCC',
        country: 'SE',
      }),
      ...paymentSteps({
        name: 'Sweden v2',
        initiate: {
          operationId: 'initiateSeV2Payment',
          path: { customerType: 'private', paymentProduct: DOMESTIC },
          body: domesticBody,
        },
        suffix: 'SeV2',
        product: DOMESTIC,
        settled: 'ACCC',
      }),
      ...paymentSteps({
        name: 'GB',
        initiate: {
          operationId: 'initiatePaymentGb',
          path: { paymentProduct: BRITISH },
          body: {
            json: {
              debtorAccount: { value: '{{gbAccount}}', accountType: 'BBAN', currency: 'GBP' },
              creditorAccount: { value: '{{gbCreditor}}', accountType: 'BBAN' },
              instructedAmount: { currency: 'GBP', amount: '42.00' },
              creditor: { name: 'Jane Doe' },
              remittanceInformationUnstructured: 'Dinner',
            },
          },
        },
        suffix: 'Gb',
        product: BRITISH,
        settled: 'ACSC',
      }),
      ...paymentSteps({
        name: 'LU',
        initiate: {
          operationId: 'initiatePaymentLu',
          path: { paymentProduct: SEPA },
          body: {
            json: {
              debtorAccount: { value: '{{luIban}}', accountType: 'IBAN', currency: 'EUR' },
              instructedAmount: { currency: 'EUR', amount: '100.00' },
              creditorAccount: { value: '{{sepaCreditor}}', accountType: 'IBAN', country: 'DE' },
              creditor: { name: 'Muster GmbH' },
              remittanceInformationUnstructured: 'Invoice 2026-11',
            },
          },
        },
        suffix: 'Lu',
        product: SEPA,
        settled: 'ACSC',
      }),
      seV1('GET', 'seV1DecommissionedGet'),
      seV1('POST', 'seV1DecommissionedPost'),
      seV1('PUT', 'seV1DecommissionedPut'),
      seV1('PATCH', 'seV1DecommissionedPatch'),
      seV1('DELETE', 'seV1DecommissionedDelete'),
    ],
  },
  {
    name: 'Signing baskets',
    description:
      "A private basket and a corporate one (the corporate of the test data), each basket's status by its id.",
    steps: [
      clientToken('PIS'),
      {
        name: 'Initiate a basket (private)',
        operationId: 'initiateBasket',
        auth: 'token',
        body: { example: 'basket' },
        status: 200,
        after: [
          json,
          "pm.test('a paymentId per payment, with its reference', () => body.payments.forEach((payment) => pm.expect(payment).to.have.all.keys('paymentId', 'tppPaymentReference')));",
          set('basketId', 'body.signingBaskedId'),
        ],
      },
      {
        name: "Read the basket's status by its id",
        operationId: 'getPaymentStatusSeV2',
        auth: 'token',
        path: { paymentProduct: DOMESTIC, paymentId: '{{basketId}}' },
        status: 200,
        after: [
          json,
          equals(
            'body',
            "{ signingBasketId: pm.collectionVariables.get('basketId'), transactionStatus: 'ACTC' }",
            true,
          ),
        ],
      },
      {
        name: 'Initiate a basket (corporate)',
        operationId: 'initiateCorporateBasket',
        auth: 'token',
        headers: CORPORATE_HEADERS,
        body: {
          json: {
            payments: [
              {
                paymentProduct: DOMESTIC,
                tppPaymentReference: 'supplier',
                debtorAccount: { value: '{{corporateBban}}', accountType: 'BBAN', currency: 'SEK' },
                creditorAccount: { value: '6789555555550', accountType: 'BBAN' },
                instructedAmount: { currency: 'SEK', amount: '1200.00' },
                remittanceInformationUnstructured: 'Faktura 881',
              },
              {
                paymentProduct: 'sek-credit-transfer',
                tppPaymentReference: 'invoice',
                debtorAccount: { value: '{{corporateBban}}', accountType: 'BBAN' },
                creditorAccount: { value: '505-0109', accountType: 'BG' },
                creditor: { name: 'Elbolaget AB' },
                instructedAmount: { currency: 'SEK', amount: '250.00' },
                remittanceInformationUnstructured: 'OCR 4455667788',
              },
            ],
          },
        },
        status: 200,
        after: [
          json,
          "pm.test('both payments, by reference', () => pm.expect(body.payments.map((payment) => payment.tppPaymentReference)).to.eql(['supplier', 'invoice']));",
          set('basketId', 'body.signingBaskedId'),
        ],
      },
      ...redirectAuthorization('PIS:{{basketId}}'),
      {
        name: 'Execute the corporate basket',
        operationId: 'executePaymentSeV2',
        auth: 'psuToken',
        path: { paymentProduct: 'sek-credit-transfer', paymentId: '{{basketId}}' },
        status: 200,
        after: [
          json,
          equals(
            'body',
            "{ signingBasketId: pm.collectionVariables.get('basketId'), transactionStatus: 'ACSC' }",
            true,
          ),
        ],
      },
    ],
  },
  {
    name: 'Decoupled authorization',
    description:
      'The mobile e-ID flow, v2 and v1: start, cancel, start again, poll (the sandbox completes at once).',
    steps: [clientToken('PIS'), ...decoupled('v2'), ...decoupled('v1')],
  },
  {
    name: 'Short-term consent and funds',
    description:
      'Sweden: a short-term consent, approved (scope PIS:<consentId>), and one read of the accounts; funds confirmation.',
    steps: [
      clientToken('PIS'),
      {
        name: 'Ask for a short-term consent',
        operationId: 'createShortTermConsent',
        auth: 'token',
        body: { example: 'allAccounts' },
        status: 201,
        after: [
          json,
          hasFields(['consentId', 'consentStatus', 'scaMethods']),
          expectField('consentStatus', ['received']),
          set('consentId', 'body.consentId'),
        ],
      },
      ...redirectAuthorization('PIS:{{consentId}}'),
      {
        name: 'Read the accounts under it',
        operationId: 'listShortTermConsentAccounts',
        auth: 'psuToken',
        status: 200,
        after: [
          json,
          "pm.test('accounts with balances and cards', () => body.accounts.forEach((account) => pm.expect(account).to.include.keys('accountId', 'balances', 'cards')));",
        ],
      },
      {
        name: 'Confirm funds',
        operationId: 'confirmFunds',
        auth: 'token',
        body: { example: 'account' },
        status: 200,
        after: [json, equals('body', '{ fundsAvailable: true }', true)],
      },
    ],
  },
  {
    name: 'Notifications',
    description:
      "The app's status notifications (sent where TPP-Notification-URI said) and each delivery attempt.",
    steps: [
      {
        name: 'List the notifications',
        operationId: 'listNotifications',
        auth: 'token',
        status: 200,
        after: [json, hasFields(['notifications'])],
      },
    ],
  },
  {
    name: 'Onboarding',
    description:
      'Enroll a TPP (the sandbox needs no certificate), its PSD2-ADMIN token, register an app; adding a certificate needs one (shown as its error).',
    steps: [
      {
        name: 'Enroll a third party',
        operationId: 'enrollThirdParty',
        status: 201,
        after: [json, hasFields(['clientId']), set('tppId', 'body.clientId')],
      },
      {
        name: 'Add a certificate: without one, the exact error',
        operationId: 'addThirdPartyCertificate',
        body: { json: {} },
        status: 400,
        after: [
          json,
          apiErrorIs(400, 'Bad Request', 'FORMAT_ERROR'),
          equals('body.tppMessages[0].path', 'clientCertificate'),
        ],
      },
      {
        name: "The TPP's PSD2-ADMIN token",
        operationId: 'getToken',
        body: { form: { grant_type: 'client_credentials', scope: 'PSD2-ADMIN', client_id: '{{tppId}}' } },
        status: 200,
        after: [
          json,
          hasFields(['access_token', 'token_type', 'expires_in']),
          set('adminToken', 'body.access_token'),
        ],
      },
      {
        name: 'Register an app',
        operationId: 'subscribe',
        auth: 'adminToken',
        headers: { 'X-Gateway-Client-Id': '{{tppId}}' },
        body: { example: 'register' },
        status: 200,
        after: [
          json,
          hasFields(['name', 'description', 'oauthRedirectURI', 'clientId', 'subscription']),
          equals('body.subscription.product.name', 'payments-se-private'),
        ],
      },
    ],
  },
  {
    name: 'PSU pages',
    description:
      "The live flow's HTML pages (login, consent), the PSU's permission dashboard and the e-ID simulator's app: without the page's CSRF token (a browser's cookie) each answers its exact error page.",
    steps: [
      {
        name: "The e-ID simulator's app",
        operationId: 'eidSimulatorStart',
        status: 200,
        after: [textIncludes('Mobile e-ID')],
      },
      pageWithoutCsrf('Open an order that does not exist', 'eidSimulatorOpen', { input: 'no-such-order' }),
      pageWithoutCsrf('Identify for an order that does not exist', 'eidSimulatorIdentify', LOGIN),
      pageWithoutCsrf('Sign without an identification', 'eidSimulatorSign', { decision: 'approve' }),
      pageWithoutCsrf('Log in without an authorization request', 'psuLogin', LOGIN),
      pageWithoutCsrf('Approve without an authorization request', 'psuConsent', { decision: 'approve' }),
      {
        name: "The PSU's permission dashboard: its login form",
        operationId: 'psuDashboard',
        status: 200,
        after: [textIncludes('Log in to see your permissions')],
      },
      pageWithoutCsrf('Log in to the dashboard with a CSRF token not its cookie', 'psuDashboardLogin', LOGIN),
      {
        ...pageWithoutCsrf('Withdraw a consent without a session', 'psuDashboardWithdrawConsent', {}),
        path: { consentId: 'none' },
      },
      {
        ...pageWithoutCsrf('Cancel a payment without a session', 'psuDashboardCancelPayment', {}),
        path: { paymentId: 'none' },
      },
      pageWithoutCsrf('Log out without a session', 'psuDashboardLogout', {}),
    ],
  },
  {
    name: 'Sandbox reset',
    description:
      "Last: the app's sandbox clock moved a minute on (what has come due runs), then the sandbox back to its test data and every clock to real time (what the requests above did is gone).",
    steps: [
      {
        name: "Advance the app's sandbox clock by a minute",
        operationId: 'advanceSandboxClock',
        auth: 'token',
        body: { json: { advance: 'PT1M' } },
        status: 200,
        after: [json, equals('body.offset', 'PT1M'), hasFields(['now', 'offset'])],
      },
      {
        name: "The app's sandbox clock",
        operationId: 'getSandboxClock',
        auth: 'token',
        status: 200,
        after: [json, equals('body.offset', 'PT1M'), hasFields(['now', 'offset'])],
      },
      {
        name: 'Reset the sandbox',
        operationId: 'resetSandbox',
        status: 200,
        after: [json, equals('body.reset', true), hasFields(['reset', 'date'])],
      },
    ],
  },
];
