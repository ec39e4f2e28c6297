// Swedish signing baskets: initiation as a whole, authorization of the basket (redirect and decoupled),
// execution all together, each payment's status by its own id.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { UNPAYABLE_DEBTOR } from '../../src/services/payments/initiation.ts';
import { type InitAnswer, initDecoupled, postLink } from '../helpers/decoupled.ts';
import { type Gateway, queryRows, sibling, startGateway } from '../helpers/gateway.ts';
import { BAD_REQUEST, call, FORBIDDEN, statusAndBody } from '../helpers/http.ts';
import { ACCOUNTS, CORPORATE_HEADERS, domestic } from '../helpers/payments.ts';

const BASKET = '/psd2/se/v2/payments/private/signing-basket';
const CORPORATE_BASKET = '/psd2/se/v2/payments/corporate/signing-basket';
let gateway: Gateway;
let token: string;
before(async () => {
  gateway = await startGateway();
  token = await gateway.client.clientCredentialsToken();
});
after(() => gateway.close());

function giro(type: 'BG' | 'PG', value: string, reference: string, amount = '250.00') {
  return {
    paymentProduct: 'sek-credit-transfer',
    tppPaymentReference: reference,
    debtorAccount: { value: ACCOUNTS.tolvan.bban!, accountType: 'BBAN' },
    creditorAccount: { value, accountType: type },
    creditor: { name: 'Elbolaget AB' },
    instructedAmount: { currency: 'SEK', amount },
    remittanceInformationUnstructured: 'OCR 4455667788',
  };
}

function threePayments() {
  return [
    { paymentProduct: 'handelsbanken-domestic-credit-transfer', tppPaymentReference: 'rent', ...domestic() },
    giro('BG', '505-0109', 'power'),
    giro('PG', '901234-5', 'water', '99.50'),
  ];
}

/** Testbolaget AB pays a supplier within the bank and an invoice by Bankgiro. */
function corporatePayments() {
  return [
    {
      paymentProduct: 'handelsbanken-domestic-credit-transfer',
      tppPaymentReference: 'supplier',
      ...domestic({
        debtorAccount: { value: ACCOUNTS.corporateSek.bban!, accountType: 'BBAN', currency: 'SEK' },
      }),
    },
    {
      ...giro('BG', '505-0109', 'invoice'),
      debtorAccount: { value: ACCOUNTS.corporateSek.bban!, accountType: 'BBAN' },
    },
  ];
}

function initiate(payments: unknown[], extra: Record<string, string> = {}) {
  return call(gateway.app, 'POST', BASKET, {
    headers: gateway.client.tppHeaders(token, extra),
    json: { payments },
  });
}

async function counts() {
  const rows = await queryRows<{ payments: number; baskets: number }>(
    gateway.store,
    sql`SELECT (SELECT count(*)::int FROM payments) AS payments, (SELECT count(*)::int FROM signing_baskets) AS baskets`,
  );
  return rows[0]!;
}

async function basket() {
  const answer = await initiate(threePayments());
  assert.equal(answer.status, 200, JSON.stringify(answer.body));
  return answer.body as {
    payments: { paymentId: string; tppPaymentReference: string }[];
    signingBaskedId: string;
  };
}

describe('initiation', () => {
  test('three payments: their ids and references and signingBaskedId, no transactionStatus', async () => {
    const body = await basket();
    assert.deepEqual(Object.keys(body).sort(), ['payments', 'signingBaskedId']);
    assert.match(body.signingBaskedId, /^[0-9a-f-]{36}$/);
    assert.deepEqual(
      body.payments.map((payment) => payment.tppPaymentReference),
      ['rent', 'power', 'water'],
    );
    for (const payment of body.payments) assert.match(payment.paymentId, /^[0-9a-f-]{36}$/);
  });

  test('one bad payment refuses the whole basket, naming it, and stores nothing', async () => {
    const before = await counts();
    const payments = threePayments();
    payments[2] = giro('PG', '901234-6', 'water');
    const answer = await initiate(payments);
    assert.deepEqual(
      statusAndBody(answer),
      BAD_REQUEST({
        code: 'FORMAT_ERROR',
        path: 'payments[2].creditorAccount.value',
        text: 'payment 2: creditorAccount.value is not a valid Plusgiro number',
      }),
    );
    assert.deepEqual(await counts(), before);
  });

  test('other-bank transfers are never in a basket', async () => {
    const payments = [
      ...threePayments(),
      {
        paymentProduct: 'other-bank-domestic-credit-transfer',
        tppPaymentReference: 'seb',
        ...domestic({ creditorAccount: { value: '50001234501', accountType: 'BBAN' } }),
      },
    ];
    assert.deepEqual(
      statusAndBody(await initiate(payments)),
      FORBIDDEN({
        code: 'PRODUCT_INVALID',
        path: 'payments[3].paymentProduct',
        text: 'payment 3: other-bank-domestic-credit-transfer cannot be part of a signing basket',
      }),
    );
  });

  test('references are unique, and one PSU pays the whole basket', async () => {
    const twice = threePayments();
    twice[1] = { ...twice[1]!, tppPaymentReference: 'rent' };
    assert.deepEqual(
      statusAndBody(await initiate(twice)),
      BAD_REQUEST({
        code: 'FORMAT_ERROR',
        path: 'payments[1].tppPaymentReference',
        text: 'payment 1: tppPaymentReference must be unique within the basket',
      }),
    );
    const mixed = threePayments();
    mixed[2] = {
      ...giro('PG', '901234-5', 'water'),
      debtorAccount: { value: ACCOUNTS.agda.bban!, accountType: 'BBAN' },
    };
    assert.deepEqual(
      statusAndBody(await initiate(mixed)),
      BAD_REQUEST({
        code: 'PAYMENT_FAILED',
        path: 'payments[2].debtorAccount.value',
        text: "payment 2: every payment of a basket is paid from the same PSU's accounts",
      }),
    );
  });

  test('corporate baskets: the corporate headers are required, and its own accounts pay', async () => {
    const corporateBasket = (payments: unknown[], headers: Record<string, string>) =>
      call(gateway.app, 'POST', CORPORATE_BASKET, {
        headers: gateway.client.tppHeaders(token, headers),
        json: { payments },
      });
    assert.deepEqual(
      statusAndBody(await corporateBasket(corporatePayments(), {})),
      BAD_REQUEST(
        { code: 'FORMAT_ERROR', path: 'PSU-Corporate-ID', text: 'header PSU-Corporate-ID is required' },
        {
          code: 'FORMAT_ERROR',
          path: 'PSU-Corporate-ID-Type',
          text: 'header PSU-Corporate-ID-Type is required',
        },
      ),
    );
    // A private customer's account, or another corporate's, is not one this basket can pay from.
    for (const headers of [CORPORATE_HEADERS, { ...CORPORATE_HEADERS, 'PSU-Corporate-ID': '5590001235' }]) {
      const payments =
        headers === CORPORATE_HEADERS ? threePayments().slice(0, 1) : corporatePayments().slice(0, 1);
      assert.deepEqual(
        statusAndBody(await corporateBasket(payments, headers)),
        BAD_REQUEST({
          ...UNPAYABLE_DEBTOR,
          path: 'payments[0].debtorAccount.value',
          text: `payment 0: ${UNPAYABLE_DEBTOR.text}`,
        }),
      );
    }
    // The private path refuses the corporate's account.
    assert.equal((await initiate(corporatePayments().slice(0, 1), CORPORATE_HEADERS)).status, 400);
    const answer = await corporateBasket(corporatePayments(), CORPORATE_HEADERS);
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    const body = answer.body as { payments: { paymentId: string }[]; signingBaskedId: string };
    assert.deepEqual(body, {
      payments: [
        { paymentId: body.payments[0]!.paymentId, tppPaymentReference: 'supplier' },
        { paymentId: body.payments[1]!.paymentId, tppPaymentReference: 'invoice' },
      ],
      signingBaskedId: body.signingBaskedId,
    });
    const rows = await queryRows<{ customer_type: string; corporate_id: string; psu_id: string }>(
      gateway.store,
      sql`SELECT customer_type, corporate_id, psu_id FROM payments WHERE basket_id = ${body.signingBaskedId}`,
    );
    assert.deepEqual(rows, [
      { customer_type: 'corporate', corporate_id: '5566778899', psu_id: '197001011234' },
      { customer_type: 'corporate', corporate_id: '5566778899', psu_id: '197001011234' },
    ]);
    // Authorized by the corporate's PSU, executed and read like a private basket.
    const scope = `PIS:${body.signingBaskedId}`;
    const code = (await gateway.client.authorize(scope, 'k')).get('code')!;
    const psuToken = (await gateway.client.exchangeCode(scope, code)).body.access_token;
    const executed = await gateway.client.execute('sek-credit-transfer', body.signingBaskedId, psuToken);
    assert.deepEqual(
      [executed.status, executed.body],
      [200, { signingBasketId: body.signingBaskedId, transactionStatus: 'ACSC' }],
    );
    const status = await gateway.client.status('sek-credit-transfer', body.signingBaskedId, token, 'SE');
    assert.deepEqual(
      [status.status, status.body],
      [200, { signingBasketId: body.signingBaskedId, transactionStatus: 'ACSC' }],
    );
  });

  test('an empty basket', async () => {
    assert.deepEqual(
      statusAndBody(await initiate([])),
      BAD_REQUEST({
        code: 'FORMAT_ERROR',
        path: 'payments',
        text: 'payments must NOT have fewer than 1 items',
      }),
    );
  });
});

describe('authorization and execution', () => {
  test('redirect: the basket id is the scope; execute books all; each status by its own id', async () => {
    const { payments, signingBaskedId } = await basket();
    const basketStatus = async (product: string, reader: string, country = 'SE') => {
      const answer = await gateway.client.status(product, signingBaskedId, reader, country);
      return { status: answer.status, body: answer.body as unknown };
    };
    assert.deepEqual(await basketStatus('sek-credit-transfer', token), {
      status: 200,
      body: { signingBasketId: signingBaskedId, transactionStatus: 'ACTC' },
    });
    const scope = `PIS:${signingBaskedId}`;
    const code = (await gateway.client.authorize(scope, 'b')).get('code')!;
    const psuToken = (await gateway.client.exchangeCode(scope, code)).body.access_token;
    const executed = await gateway.client.execute('sek-credit-transfer', signingBaskedId, psuToken);
    assert.deepEqual(
      [executed.status, executed.body],
      [200, { signingBasketId: signingBaskedId, transactionStatus: 'ACSC' }],
    );
    // The basket's status by its id, with either token: the least advanced of its payments' statuses.
    for (const reader of [token, psuToken]) {
      assert.deepEqual(await basketStatus('handelsbanken-domestic-credit-transfer', reader), {
        status: 200,
        body: { signingBasketId: signingBaskedId, transactionStatus: 'ACSC' },
      });
    }
    assert.deepEqual(
      await basketStatus('sepa-credit-transfer', token),
      FORBIDDEN({
        code: 'PRODUCT_INVALID',
        text: `Basket ${signingBaskedId} holds no sepa-credit-transfer payment`,
      }),
    );
    assert.deepEqual(
      await basketStatus('sek-credit-transfer', token, 'GB'),
      BAD_REQUEST({
        code: 'FORMAT_ERROR',
        path: 'Country',
        text: `Basket ${signingBaskedId} was initiated for SE, not GB`,
      }),
    );
    const again = await gateway.client.execute('sek-credit-transfer', signingBaskedId, psuToken);
    assert.deepEqual(again.body, { signingBasketId: signingBaskedId, transactionStatus: 'ACSC' });
    const expected = ['ACCC', 'ACSC', 'ACSC'];
    for (const [index, payment] of payments.entries()) {
      const product = index === 0 ? 'handelsbanken-domestic-credit-transfer' : 'sek-credit-transfer';
      for (const reader of [token, psuToken]) {
        const status = await gateway.client.status(product, payment.paymentId, reader, 'SE');
        assert.deepEqual(
          [status.status, status.body],
          [200, { paymentId: payment.paymentId, transactionStatus: expected[index] }],
        );
      }
    }
  });

  test('decoupled: the basket id in the scope', async () => {
    const { signingBaskedId } = await basket();
    const init = await initDecoupled(gateway, {
      client_id: gateway.sandboxApp.clientId,
      scope: `PIS:${signingBaskedId}`,
      psu_client_ip: '192.0.2.1',
      bisa_same_device: true,
    });
    const polled = await postLink(gateway, (init.body as InitAnswer)._links.token.href);
    const psuToken = (polled.body as { access_token: string }).access_token;
    const executed = await gateway.client.execute(
      'handelsbanken-domestic-credit-transfer',
      signingBaskedId,
      psuToken,
    );
    assert.deepEqual(
      [executed.status, executed.body],
      [200, { signingBasketId: signingBaskedId, transactionStatus: 'ACSC' }],
    );
  });

  test('a basket payment is authorized and executed only with its basket', async () => {
    const { payments, signingBaskedId } = await basket();
    const single = await gateway.client.authorize(`PIS:${payments[0]!.paymentId}`, 'b');
    assert.deepEqual(Object.fromEntries(single), {
      error: 'invalid_scope',
      error_description: `the payment is part of signing basket ${signingBaskedId}: authorize the basket`,
      state: 'b',
    });
    const scope = `PIS:${signingBaskedId}`;
    const code = (await gateway.client.authorize(scope, 'b')).get('code')!;
    const psuToken = (await gateway.client.exchangeCode(scope, code)).body.access_token;
    const alone = await gateway.client.execute(
      'handelsbanken-domestic-credit-transfer',
      payments[0]!.paymentId,
      psuToken,
    );
    assert.equal(alone.status, 401);
    const wrongProduct = await gateway.client.execute('sepa-credit-transfer', signingBaskedId, psuToken);
    assert.deepEqual(
      [
        wrongProduct.status,
        (wrongProduct.body as unknown as { tppMessages: { code: string }[] }).tppMessages[0]!.code,
      ],
      [403, 'PRODUCT_INVALID'],
    );
  });

  test('a retried basket initiation under its Idempotency-Key answers the first answer', async () => {
    const key = `"${randomUUID()}"`;
    const first = await initiate(threePayments(), { 'Idempotency-Key': key });
    const second = await initiate(threePayments(), { 'Idempotency-Key': key });
    assert.deepEqual(statusAndBody(second), statusAndBody(first));
  });

  test('one TPP-Request-ID on two basket initiations makes two baskets', async () => {
    const first = await initiate(threePayments(), { 'TPP-Request-ID': 'constant' });
    const second = await initiate(threePayments(), { 'TPP-Request-ID': 'constant' });
    assert.deepEqual([first.status, second.status], [200, 200]);
    assert.notEqual(
      (first.body as { signingBaskedId: string }).signingBaskedId,
      (second.body as { signingBaskedId: string }).signingBaskedId,
    );
  });
});

test('a basket executes all or nothing: one rejection rejects every payment', async () => {
  const rejecting = await sibling(gateway, {
    coreBanking: (ledger) => ({
      ...ledger,
      book: async (order) =>
        order.lines.some((line) => line.reference === 'water')
          ? { booked: false, reasonCode: 'AM04', reason: 'insufficient funds' }
          : ledger.book(order),
    }),
  });
  try {
    const { payments, signingBaskedId } = await basket();
    const scope = `PIS:${signingBaskedId}`;
    const code = (await rejecting.client.authorize(scope, 'b')).get('code')!;
    const psuToken = (await rejecting.client.exchangeCode(scope, code)).body.access_token;
    const executed = await rejecting.client.execute('sek-credit-transfer', signingBaskedId, psuToken);
    assert.deepEqual(
      [executed.status, executed.body],
      [200, { signingBasketId: signingBaskedId, transactionStatus: 'RJCT' }],
    );
    for (const [index, payment] of payments.entries()) {
      const product = index === 0 ? 'handelsbanken-domestic-credit-transfer' : 'sek-credit-transfer';
      const status = await rejecting.client.status(product, payment.paymentId, token, 'SE');
      assert.deepEqual(status.body, {
        paymentId: payment.paymentId,
        transactionStatus: 'RJCT',
        reasonCode: 'AM04',
        reason: 'insufficient funds',
      });
    }
  } finally {
    await rejecting.close();
  }
});
