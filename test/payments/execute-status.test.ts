// Execute and status: who may call them with which token, the product and country of the path,
// the statuses after execution, and executing twice.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { InitiationRequest, TppClient } from '@psd2-gateway/client';
import { addDays, dateIn } from '../../src/domain/dates.ts';
import { type Gateway, manualClock, sibling, startGateway } from '../helpers/gateway.ts';
import {
  BAD_REQUEST,
  call,
  FORBIDDEN,
  KEY_REUSED,
  NOT_FOUND,
  statusAndBody,
  UNAUTHORIZED,
} from '../helpers/http.ts';
import { domestic, otherBank } from '../helpers/payments.ts';

const DOMESTIC = 'handelsbanken-domestic-credit-transfer';
const DOMESTIC_PATH = `/psd2/se/v2/payments/private/single/${DOMESTIC}`;

let gateway: Gateway;
let clientToken: string;
before(async () => {
  gateway = await startGateway();
  clientToken = await gateway.client.clientCredentialsToken();
});
after(() => gateway.close());

async function initiated(
  client: TppClient = gateway.client,
  body: InitiationRequest = domestic(),
  path = DOMESTIC_PATH,
) {
  const token = client === gateway.client ? clientToken : await client.clientCredentialsToken();
  const answer = await client.initiate(token, { path, body });
  assert.equal(answer.status, 200, JSON.stringify(answer.body));
  return answer.body.paymentId;
}

async function psuToken(paymentId: string, client: TppClient = gateway.client) {
  const scope = `PIS:${paymentId}`;
  const code = (await client.authorize(scope, 'st')).get('code')!;
  return (await client.exchangeCode(scope, code)).body.access_token;
}

function execute(
  product: string,
  paymentId: string,
  token: string,
  clientId = gateway.sandboxApp.clientId,
  idempotencyKey?: string,
) {
  return call(gateway.app, 'PUT', `/psd2/v1/payments/${product}/${paymentId}`, {
    headers: {
      'x-gateway-client-id': clientId,
      'tpp-request-id': 'one-constant-request-id',
      ...(idempotencyKey === undefined ? {} : { 'idempotency-key': idempotencyKey }),
      'tpp-transaction-id': 't',
      authorization: `Bearer ${token}`,
    },
  });
}

function status(
  product: string,
  paymentId: string,
  token: string,
  country = 'SE',
  clientId = gateway.sandboxApp.clientId,
) {
  return call(gateway.app, 'GET', `/psd2/v1/payments/${product}/${paymentId}/status`, {
    headers: {
      'x-gateway-client-id': clientId,
      'tpp-request-id': randomUUID(),
      'tpp-transaction-id': 't',
      authorization: `Bearer ${token}`,
      country,
    },
  });
}

describe('execute', () => {
  test('a future-dated payment is accepted and waits: ACCP', async () => {
    const tomorrow = addDays(dateIn(new Date(), 'Europe/Stockholm'), 1);
    const paymentId = await initiated(gateway.client, domestic({ requestedExecutionDate: tomorrow }));
    const answer = await execute(DOMESTIC, paymentId, await psuToken(paymentId));
    assert.deepEqual(statusAndBody(answer), { status: 200, body: { paymentId, transactionStatus: 'ACCP' } });
  });

  test('dated today is immediate', async () => {
    const today = dateIn(new Date(), 'Europe/Stockholm');
    const paymentId = await initiated(gateway.client, domestic({ requestedExecutionDate: today }));
    const answer = await execute(DOMESTIC, paymentId, await psuToken(paymentId));
    assert.deepEqual(statusAndBody(answer), { status: 200, body: { paymentId, transactionStatus: 'ACCC' } });
  });

  test('needs the PSU token of this payment', async () => {
    const paymentId = await initiated();
    const otherPayment = await initiated();
    const otherToken = await psuToken(otherPayment);
    assert.deepEqual(
      statusAndBody(await execute(DOMESTIC, paymentId, clientToken)),
      UNAUTHORIZED({
        code: 'TOKEN_INVALID',
        text: 'This call needs the PSU access token of the authorization',
      }),
    );
    assert.deepEqual(
      statusAndBody(await execute(DOMESTIC, paymentId, otherToken)),
      UNAUTHORIZED({
        code: 'TOKEN_INVALID',
        text: 'The access token is not valid for the resource of this path',
      }),
    );
    const answer = await execute(DOMESTIC, paymentId, await psuToken(paymentId));
    assert.deepEqual(statusAndBody(answer), { status: 200, body: { paymentId, transactionStatus: 'ACCC' } });
  });

  test("another app's PSU token, and another app's payment", async () => {
    const other = await gateway.addApp();
    const theirs = await initiated(other);
    const theirToken = await psuToken(theirs, other);
    assert.deepEqual(
      statusAndBody(await execute(DOMESTIC, theirs, theirToken)),
      UNAUTHORIZED({ code: 'TOKEN_INVALID', text: 'The access token was not issued to this app' }),
    );
    const executed = await execute(DOMESTIC, theirs, theirToken, other.clientId);
    assert.deepEqual(statusAndBody(executed), {
      status: 200,
      body: { paymentId: theirs, transactionStatus: 'ACCC' },
    });
    assert.deepEqual(
      statusAndBody(await status(DOMESTIC, theirs, clientToken)),
      NOT_FOUND({
        code: 'RESOURCE_UNKNOWN',
        path: 'paymentId',
        text: 'There is no payment with this paymentId',
      }),
    );
  });

  test('the product of the path must be the payment product', async () => {
    const paymentId = await initiated();
    const token = await psuToken(paymentId);
    assert.deepEqual(
      statusAndBody(await execute('sepa-credit-transfer', paymentId, token)),
      FORBIDDEN({ code: 'PRODUCT_INVALID', text: `Payment ${paymentId} was initiated as ${DOMESTIC}` }),
    );
    assert.deepEqual(
      statusAndBody(await execute('no-such-product', paymentId, token)),
      NOT_FOUND({
        code: 'PRODUCT_UNKNOWN',
        path: 'paymentProduct',
        text: 'The path names no payment product of the bank',
      }),
    );
  });

  test('an unknown payment', async () => {
    const paymentId = await initiated();
    const token = await psuToken(paymentId);
    const missing = randomUUID();
    assert.deepEqual(
      statusAndBody(await status(DOMESTIC, missing, clientToken)),
      NOT_FOUND({
        code: 'RESOURCE_UNKNOWN',
        path: 'paymentId',
        text: 'There is no payment with this paymentId',
      }),
    );
    assert.equal((await execute(DOMESTIC, missing, token)).status, 401);
  });

  test('the same TPP-Request-ID executes another payment; the same Idempotency-Key for it is refused (422)', async () => {
    const first = await initiated();
    const second = await initiated();
    const third = await initiated();
    const key = `"${randomUUID()}"`;
    const executed = (paymentId: string) => ({ status: 200, body: { paymentId, transactionStatus: 'ACCC' } });
    assert.deepEqual(statusAndBody(await execute(DOMESTIC, first, await psuToken(first))), executed(first));
    assert.deepEqual(
      statusAndBody(await execute(DOMESTIC, second, await psuToken(second), undefined, key)),
      executed(second),
    );
    assert.deepEqual(statusAndBody(await execute(DOMESTIC, third, await psuToken(third), undefined, key)), {
      status: 422,
      body: KEY_REUSED,
    });
  });

  test('other bank: ACSC, under either spelling', async () => {
    const paymentId = await initiated(
      gateway.client,
      otherBank(),
      '/psd2/se/v2/payments/private/single/other-bank-domestic-credit-transfer',
    );
    const answer = await execute(
      'other-banks-domestic-credit-transfer',
      paymentId,
      await psuToken(paymentId),
    );
    assert.deepEqual(statusAndBody(answer), { status: 200, body: { paymentId, transactionStatus: 'ACSC' } });
  });
});

describe('status', () => {
  test('the Country must be the payment country', async () => {
    const paymentId = await initiated();
    assert.deepEqual(
      statusAndBody(await status(DOMESTIC, paymentId, clientToken, 'NL')),
      BAD_REQUEST({
        code: 'FORMAT_ERROR',
        path: 'Country',
        text: `Payment ${paymentId} was initiated for SE, not NL`,
      }),
    );
  });

  test('a client-credentials token of another app', async () => {
    const paymentId = await initiated();
    const other = await gateway.addApp();
    const theirToken = await other.clientCredentialsToken();
    assert.deepEqual(
      statusAndBody(await status(DOMESTIC, paymentId, theirToken)),
      UNAUTHORIZED({ code: 'TOKEN_INVALID', text: 'The access token was not issued to this app' }),
    );
  });

  test('an expired client-credentials token', async () => {
    const time = manualClock();
    const timed = await sibling(gateway, { clock: time.clock });
    try {
      const token = await timed.client.clientCredentialsToken();
      const paymentId = await initiated();
      time.advance(86_400_000);
      const answer = await call(timed.app, 'GET', `/psd2/v1/payments/${DOMESTIC}/${paymentId}/status`, {
        headers: {
          'x-gateway-client-id': gateway.sandboxApp.clientId,
          'tpp-request-id': 'r',
          'tpp-transaction-id': 't',
          authorization: `Bearer ${token}`,
          country: 'SE',
        },
      });
      assert.deepEqual(
        statusAndBody(answer),
        UNAUTHORIZED({ code: 'TOKEN_EXPIRED', text: 'The access token has expired' }),
      );
    } finally {
      await timed.close();
    }
  });
});
