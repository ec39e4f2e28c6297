// The country APIs of Great Britain and Luxembourg: each country's products only, execute and status
// under the country prefix too, and the exchange shown for cross-currency payments.

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { InitiationRequest } from '@psd2-gateway/client';
import { dateIn } from '../../src/domain/dates.ts';
import { type Gateway, startGateway } from '../helpers/gateway.ts';
import { call, FORBIDDEN, statusAndBody } from '../helpers/http.ts';
import { ACCOUNTS, british, crossCurrency, domestic, sepa } from '../helpers/payments.ts';

let gateway: Gateway;
let token: string;
before(async () => {
  gateway = await startGateway();
  token = await gateway.client.clientCredentialsToken();
});
after(() => gateway.close());

async function flow(prefix: string, product: string, body: InitiationRequest, settled: string) {
  const { client } = gateway;
  const initiated = await client.initiate(token, { path: `${prefix}/${product}`, body });
  assert.equal(initiated.status, 200, JSON.stringify(initiated.body));
  const paymentId = initiated.body.paymentId;
  assert.deepEqual(
    initiated.body.scaMethods.map((method) => method.scaMethodType),
    ['REDIRECT'],
  );
  const scope = `PIS:${paymentId}`;
  const code = (await client.authorize(scope, 's')).get('code')!;
  const psuToken = (await client.exchangeCode(scope, code)).body.access_token;
  const executed = await client.execute(product, paymentId, psuToken, prefix);
  const status = await client.status(product, paymentId, token, 'unused', prefix);
  return { paymentId, executed, status, settled };
}

test('Great Britain: british domestic, SEPA and cross-currency under /psd2/gb/v1', async () => {
  for (const [product, body] of [
    ['british-domestic-credit-transfer', british()],
    [
      'sepa-credit-transfer',
      sepa(ACCOUNTS.gb.iban!, { debtorAccount: { value: ACCOUNTS.gb.iban!, accountType: 'IBAN' } }),
    ],
  ] as const) {
    const { paymentId, executed, status } = await flow('/psd2/gb/v1/payments', product, body, 'ACSC');
    assert.deepEqual([executed.status, executed.body], [200, { paymentId, transactionStatus: 'ACSC' }]);
    assert.deepEqual([status.status, status.body], [200, { paymentId, transactionStatus: 'ACSC' }]);
  }
  const cross = crossCurrency({
    debtorAccount: { value: ACCOUNTS.gb.iban!, accountType: 'IBAN' },
    instructedAmount: { currency: 'EUR', amount: '80.00' },
  });
  const { paymentId, executed } = await flow(
    '/psd2/gb/v1/payments',
    'cross-currency-credit-transfer',
    cross,
    'ACSC',
  );
  assert.deepEqual(executed.body, {
    paymentId,
    transactionStatus: 'ACSC',
    currencyExchange: {
      sourceCurrency: 'GBP',
      targetCurrency: 'EUR',
      exchangeRate: '0.867424',
      quotationDate: dateIn(new Date(), 'Europe/Stockholm'),
    },
  });
});

test('Luxembourg: SEPA and cross-currency under /psd2/lu/v1', async () => {
  const { paymentId, executed, status } = await flow(
    '/psd2/lu/v1/payments',
    'sepa-credit-transfer',
    sepa(ACCOUNTS.lu.iban!),
    'ACSC',
  );
  assert.deepEqual(executed.body, { paymentId, transactionStatus: 'ACSC' });
  assert.deepEqual(status.body, { paymentId, transactionStatus: 'ACSC' });
  const cross = crossCurrency({
    debtorAccount: { value: ACCOUNTS.lu.iban!, accountType: 'IBAN' },
    instructedAmount: { currency: 'CHF', amount: '500.00' },
  });
  const converted = await flow('/psd2/lu/v1/payments', 'cross-currency-credit-transfer', cross, 'ACSC');
  assert.deepEqual(converted.status.body, {
    paymentId: converted.paymentId,
    transactionStatus: 'ACSC',
    currencyExchange: {
      sourceCurrency: 'EUR',
      targetCurrency: 'CHF',
      exchangeRate: '1.056769',
      quotationDate: dateIn(new Date(), 'Europe/Stockholm'),
    },
  });
});

test('each country allows only its products, and only its own accounts', async () => {
  const cases: [string, unknown, { status: number; body: unknown }][] = [
    [
      '/psd2/gb/v1/payments/handelsbanken-domestic-credit-transfer',
      domestic(),
      FORBIDDEN({
        code: 'PRODUCT_INVALID',
        text: 'handelsbanken-domestic-credit-transfer is not offered in GB',
      }),
    ],
    [
      '/psd2/lu/v1/payments/british-domestic-credit-transfer',
      british(),
      FORBIDDEN({ code: 'PRODUCT_INVALID', text: 'british-domestic-credit-transfer is not offered in LU' }),
    ],
  ];
  for (const [path, body, expected] of cases) {
    assert.deepEqual(
      statusAndBody(
        await call(gateway.app, 'POST', path, { headers: gateway.client.tppHeaders(token), json: body }),
      ),
      expected,
      path,
    );
  }
  const wrongCountry = await call(gateway.app, 'POST', '/psd2/lu/v1/payments/sepa-credit-transfer', {
    headers: gateway.client.tppHeaders(token),
    json: sepa(ACCOUNTS.nl.iban!),
  });
  assert.equal(
    (wrongCountry.body as { tppMessages: { text: string }[] }).tppMessages[0]!.text,
    'the account is held in NL, not LU',
  );
});
