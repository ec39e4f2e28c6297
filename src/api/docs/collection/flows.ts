// The flows of the contract, each a folder of the collection: its requests in order, wired to the ones
// before them by variables (token -> paymentId -> code -> PSU token).
import {
  clientToken,
  executeAndStatus,
  expectField,
  type Flow,
  hasFields,
  initiateSeV2,
  json,
  redirectAuthorization,
  set,
} from './steps.ts';

/** The flows of the contract, in the order a TPP goes through them. */
export const FLOWS: readonly Flow[] = [
  {
    name: '1. Payment: redirect authorization',
    description:
      'Spec steps 1-5: a client-credentials token, the initiation, the PSU authorizes (the sandbox redirects with the code at once), the code for the PSU token, execution, status.',
    steps: [
      clientToken('PIS'),
      initiateSeV2(),
      ...redirectAuthorization('PIS:{{paymentId}}'),
      ...executeAndStatus(),
    ],
  },
  {
    name: '2. Payment: decoupled (mobile e-ID) authorization',
    description:
      'Sweden: the PSU approves in the e-ID app; the collection polls the token URL no sooner than sleep_time apart until COMPLETE.',
    steps: [
      clientToken('PIS'),
      initiateSeV2(),
      {
        name: 'Start the decoupled authorization',
        operationId: 'startDecoupledAuthorization',
        body: {
          json: {
            client_id: '{{clientId}}',
            scope: 'PIS:{{paymentId}}',
            psu_client_ip: '{{psuIpAddress}}',
            bisa_same_device: false,
          },
        },
        status: 200,
        after: [
          json,
          hasFields(['qr_code', 'sleep_time', '_links']),
          set('sessionId', 'decodeURIComponent(/sessionId=([^&]+)/.exec(body._links.token.href)[1])'),
          set('sleepTime', 'body.sleep_time'),
          set('polls', '0'),
        ],
      },
      {
        name: 'Poll until COMPLETE (sleep_time apart)',
        operationId: 'pollDecoupledToken',
        query: { sessionId: '{{sessionId}}' },
        body: { json: {} },
        status: 200,
        before: ["setTimeout(() => {}, Number(pm.collectionVariables.get('sleepTime')) || 0);"],
        after: [
          json,
          "const polls = Number(pm.collectionVariables.get('polls')) + 1;",
          set('polls', 'polls'),
          "pm.test('in progress or complete', () => pm.expect(['IN_PROGRESS', 'COMPLETE']).to.include(body.result));",
          "if (body.result === 'IN_PROGRESS' && polls < 10) {",
          `  ${set('sleepTime', 'body.sleep_time')}`,
          '  postman.setNextRequest(pm.info.requestName);',
          '} else {',
          "  pm.test('complete', () => pm.expect(body.result).to.equal('COMPLETE'));",
          `  ${set('psuToken', 'body.access_token')}`,
          '}',
        ],
      },
      ...executeAndStatus(),
    ],
  },
  {
    name: '3. Signing basket',
    description:
      'Sweden, private customers: several payments authorized once (scope PIS:{signingBaskedId}) and executed together, all or none.',
    steps: [
      clientToken('PIS'),
      {
        name: 'Initiate a basket',
        operationId: 'initiateBasket',
        auth: 'token',
        body: { example: 'basket' },
        status: 200,
        after: [json, hasFields(['payments', 'signingBaskedId']), set('basketId', 'body.signingBaskedId')],
      },
      ...redirectAuthorization('PIS:{{basketId}}'),
      {
        name: 'Execute the basket',
        operationId: 'executePaymentSeV2',
        auth: 'psuToken',
        path: { paymentProduct: 'sek-credit-transfer', paymentId: '{{basketId}}' },
        status: 200,
        after: [
          json,
          "pm.test('the basket answers', () => pm.expect(body.signingBasketId).to.equal(pm.collectionVariables.get('basketId')));",
          expectField('transactionStatus', ['ACCC', 'ACSC', 'ACCP']),
        ],
      },
    ],
  },
  {
    name: '4. Account information',
    description:
      "A consent, the PSU's approval (scope AIS:{consentId}), then the accounts, balances and transactions.",
    steps: [
      clientToken('AIS'),
      {
        name: 'Ask for a consent',
        operationId: 'createConsent',
        auth: 'token',
        body: { example: 'allAccounts' },
        status: 201,
        after: [json, expectField('consentStatus', ['received']), set('consentId', 'body.consentId')],
      },
      ...redirectAuthorization('AIS:{{consentId}}'),
      {
        name: 'List the accounts',
        operationId: 'listAccounts',
        auth: 'psuToken',
        status: 200,
        after: [
          json,
          "pm.test('accounts are listed', () => pm.expect(body.accounts).to.be.an('array').that.is.not.empty);",
          set('accountId', 'body.accounts[0].accountId'),
        ],
      },
      {
        name: 'Read the balances',
        operationId: 'getBalances',
        auth: 'psuToken',
        path: { accountId: '{{accountId}}' },
        status: 200,
        after: [
          json,
          "pm.test('balances are listed', () => pm.expect(body.balances).to.be.an('array').that.is.not.empty);",
        ],
      },
      {
        name: 'Read the transactions',
        operationId: 'getTransactions',
        auth: 'psuToken',
        path: { accountId: '{{accountId}}' },
        status: 200,
        after: [
          json,
          "pm.test('transactions are listed', () => pm.expect(body.transactions).to.be.an('array'));",
        ],
      },
    ],
  },
  {
    name: '5. Funds confirmation',
    description: 'Is an amount available on an account now: true or false.',
    steps: [
      clientToken('PIS'),
      {
        name: 'Confirm funds',
        operationId: 'confirmFunds',
        auth: 'token',
        body: { example: 'account' },
        status: 200,
        after: [
          json,
          "pm.test('fundsAvailable is true', () => pm.expect(body.fundsAvailable).to.equal(true));",
        ],
      },
    ],
  },
];
