// The five steps of the contract (token, initiate, authorize, execute, status) over real HTTP, for
// every single-payment product on the general and Sweden v2 APIs, on PGlite and on PostgreSQL.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { expectOk } from '@psd2-gateway/client';
import { dateIn } from '../../src/domain/dates.ts';
import { backends, type Gateway, startGateway } from '../helpers/gateway.ts';
import { expectedScaMethods } from '../helpers/http.ts';
import { SINGLE_PAYMENTS } from '../helpers/payments.ts';

for (const backend of backends()) {
  describe(`payment flow on ${backend}`, () => {
    let gateway: Gateway;
    let clientToken: string;
    before(async () => {
      gateway = await startGateway({ backend });
      clientToken = await gateway.client.clientCredentialsToken();
    });
    after(() => gateway.close());

    for (const payment of SINGLE_PAYMENTS) {
      test(payment.name, async () => {
        // Cross-currency answers also show the exchange (quoted today in the bank's time zone).
        const exchange =
          'exchange' in payment
            ? {
                currencyExchange: {
                  ...payment.exchange,
                  quotationDate: dateIn(new Date(), 'Europe/Stockholm'),
                },
              }
            : {};
        const answer = (paymentId: string, transactionStatus: string) => ({
          paymentId,
          transactionStatus,
          ...exchange,
        });
        const { client, url } = gateway;
        const initiated = await client.initiate(clientToken, {
          path: payment.path,
          body: payment.body,
          ...(payment.path.startsWith('/psd2/v1/') ? { country: payment.country } : {}),
          headers: 'headers' in payment ? payment.headers : {},
        });
        assert.equal(initiated.status, 200, JSON.stringify(initiated.body));
        const { paymentId } = initiated.body;
        assert.match(paymentId, /^[0-9a-f-]{36}$/);
        assert.deepEqual(initiated.body, {
          paymentId,
          scaMethods: expectedScaMethods(url, payment.country === 'SE'),
          transactionStatus: 'ACTC',
        });
        assert.equal(initiated.headers.get('tpp-request-id') !== null, true);

        const before = await client.status(payment.product, paymentId, clientToken, payment.country);
        assert.deepEqual([before.status, before.body], [200, answer(paymentId, 'ACTC')]);

        const scope = `PIS:${paymentId}`;
        const query = await client.authorize(scope, 'state-42');
        assert.equal(query.get('state'), 'state-42');
        const code = query.get('code')!;
        assert.match(code, /^[A-Za-z0-9_-]{43}$/);
        const token = await client.exchangeCode(scope, code);
        assert.equal(token.status, 200);
        assert.deepEqual(Object.keys(token.body).sort(), ['access_token', 'expires_in', 'token_type']);
        assert.equal(token.body.expires_in, 900);
        assert.equal(token.body.token_type, 'Bearer');
        assert.equal(token.headers.get('cache-control'), 'no-store');

        const executed = await client.execute(payment.product, paymentId, token.body.access_token);
        assert.deepEqual([executed.status, executed.body], [200, answer(paymentId, payment.settled)]);

        for (const reader of [clientToken, token.body.access_token]) {
          const status = await client.status(payment.product, paymentId, reader, payment.country);
          assert.deepEqual([status.status, status.body], [200, answer(paymentId, payment.settled)]);
        }
        if (payment.country === 'SE') {
          const v2 = await client.status(
            payment.product,
            paymentId,
            clientToken,
            'SE',
            '/psd2/se/v2/payments',
          );
          assert.deepEqual([v2.status, v2.body], [200, answer(paymentId, payment.settled)]);
        }
        const again = await client.execute(payment.product, paymentId, token.body.access_token);
        assert.deepEqual([again.status, again.body], [200, answer(paymentId, payment.settled)]);
      });
    }

    test('execute and status under the v2 prefix, other-bank spelled with an s', async () => {
      const { client } = gateway;
      const body = SINGLE_PAYMENTS[1].body;
      const initiated = expectOk(
        await client.initiate(clientToken, { path: SINGLE_PAYMENTS[1].path, body }),
        'initiate',
      );
      const scope = `PIS:${initiated.paymentId}`;
      const code = (await client.authorize(scope, 's')).get('code')!;
      const psuToken = expectOk(await client.exchangeCode(scope, code), 'code').access_token;
      const product = 'other-banks-domestic-credit-transfer';
      const executed = await client.execute(product, initiated.paymentId, psuToken, '/psd2/se/v2/payments');
      assert.deepEqual(
        [executed.status, executed.body],
        [200, { paymentId: initiated.paymentId, transactionStatus: 'ACSC' }],
      );
      const status = await client.status(product, initiated.paymentId, psuToken, 'SE');
      assert.deepEqual(
        [status.status, status.body],
        [200, { paymentId: initiated.paymentId, transactionStatus: 'ACSC' }],
      );
    });
  });
}
