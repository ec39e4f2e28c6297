// Future-dated payments: execute gives ACCP, the scheduler books them on their date exactly once (also
// with two gateways on one PostgreSQL racing it and executions), DELETE cancels before the date.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { addDays, dateIn } from '../../src/domain/dates.ts';
import type { BookingOrder, CoreBanking } from '../../src/ports/core-banking.ts';
import { bookDuePayments } from '../../src/services/payments/due-payments.ts';
import type { RecordedBookings } from '../../src/services/shared/recorded-bookings.ts';
import {
  backends,
  builtInLedger,
  type Gateway,
  type GatewayPair,
  manualClock,
  serviceContext,
  startGatewayPair,
} from '../helpers/gateway.ts';
import { call, errorBody, statusAndBody } from '../helpers/http.ts';
import { domestic } from '../helpers/payments.ts';

const PRODUCT = 'handelsbanken-domestic-credit-transfer';
const PATH = `/psd2/se/v2/payments/private/single/${PRODUCT}`;

/** Counts every booking the core banking system is asked to make, per payment, in three steps or one call. */
function counting(counts: Map<string, number>) {
  const count = (order: BookingOrder) => {
    for (const line of order.lines) counts.set(line.paymentId, (counts.get(line.paymentId) ?? 0) + 1);
  };
  return {
    coreBanking: (ledger: CoreBanking): CoreBanking => ({
      ...ledger,
      book: (order) => {
        count(order);
        return ledger.book(order);
      },
    }),
    recordedBookings: (ledger: RecordedBookings): RecordedBookings => ({
      bookRecorded: (order, record) => {
        count(order);
        return ledger.bookRecorded(order, record);
      },
    }),
  };
}

for (const backend of backends()) {
  describe(`future-dated payments on ${backend}`, () => {
    const time = manualClock(Date.parse('2026-11-21T10:00:00Z'));
    const counts = new Map<string, number>();
    let pair: GatewayPair;
    let first: Gateway;
    let second: Gateway;
    let token: string;
    const tomorrow = addDays(dateIn(time.clock(), 'Europe/Stockholm'), 1);

    before(async () => {
      pair = await startGatewayPair(backend, { clock: time.clock, ...counting(counts) });
      ({ first, second } = pair);
      token = await first.client.clientCredentialsToken();
    });
    after(() => pair.close());

    async function executed(date: string): Promise<{ paymentId: string; psuToken: string }> {
      const initiated = await first.client.initiate(token, {
        path: PATH,
        body: domestic({ requestedExecutionDate: date }),
      });
      const paymentId = initiated.body.paymentId;
      const scope = `PIS:${paymentId}`;
      const code = (await first.client.authorize(scope, 's')).get('code')!;
      const psuToken = (await first.client.exchangeCode(scope, code)).body.access_token;
      const answer = await first.client.execute(PRODUCT, paymentId, psuToken);
      assert.deepEqual([answer.status, answer.body], [200, { paymentId, transactionStatus: 'ACCP' }]);
      return { paymentId, psuToken };
    }

    function cancel(gateway: Gateway, paymentId: string, bearer: string) {
      return call(gateway.app, 'DELETE', `/psd2/v1/payments/${PRODUCT}/${paymentId}`, {
        headers: gateway.client.tppHeaders(bearer),
      });
    }

    test('30 payments for tomorrow, two gateways racing the scheduler and executions: each booked once', async () => {
      const payments = await Promise.all(Array.from({ length: 30 }, () => executed(tomorrow)));
      assert.equal(
        await bookDuePayments(serviceContext(first, { clock: time.clock })),
        0,
        'nothing is due today',
      );
      time.advance(86_400_000);
      token = await first.client.clientCredentialsToken();
      const contexts = [first, second].map((gateway) =>
        serviceContext(gateway, {
          clock: time.clock,
          coreBanking: counting(counts).coreBanking(builtInLedger(gateway.store, gateway.config, time.clock)),
        }),
      );
      const results = await Promise.all([
        ...contexts.flatMap((context) => [bookDuePayments(context), bookDuePayments(context)]),
        ...payments.map(({ paymentId, psuToken }, index) =>
          (index % 2 === 0 ? first : second).client.execute(PRODUCT, paymentId, psuToken),
        ),
      ]);
      const booked = results.slice(0, 4) as number[];
      assert.equal(
        booked.reduce((sum, count) => sum + count, 0),
        30,
      );
      for (const { paymentId } of payments) {
        // The bank is asked to book on the date only (execute answered ACCP without asking it).
        assert.equal(counts.get(paymentId), 1, 'one booking, on the date');
        const status = await first.client.status(PRODUCT, paymentId, token, 'SE');
        assert.deepEqual(status.body, { paymentId, transactionStatus: 'ACCC' });
      }
    });

    test('DELETE before the date: CANC; the scheduler then leaves it alone', async () => {
      const { paymentId, psuToken } = await executed(addDays(dateIn(time.clock(), 'Europe/Stockholm'), 3));
      const cancelled = await cancel(first, paymentId, psuToken);
      assert.deepEqual(statusAndBody(cancelled), {
        status: 200,
        body: { paymentId, transactionStatus: 'CANC' },
      });
      assert.deepEqual(statusAndBody(await cancel(second, paymentId, token)), {
        status: 200,
        body: { paymentId, transactionStatus: 'CANC' },
      });
      time.advance(3 * 86_400_000);
      token = await first.client.clientCredentialsToken();
      await bookDuePayments(serviceContext(first, { clock: time.clock }));
      assert.deepEqual((await first.client.status(PRODUCT, paymentId, token, 'SE')).body, {
        paymentId,
        transactionStatus: 'CANC',
      });
    });

    test('an executed immediate payment cannot be cancelled', async () => {
      const initiated = await first.client.initiate(token, { path: PATH, body: domestic() });
      const paymentId = initiated.body.paymentId;
      await first.client.authorizeAndExecute(PRODUCT, paymentId);
      const refused = await cancel(first, paymentId, token);
      assert.deepEqual(statusAndBody(refused), {
        status: 405,
        body: errorBody(405, 'Method Not Allowed', {
          code: 'CANCELLATION_INVALID',
          text: `payment ${paymentId} is ACCC and can no longer be cancelled`,
        }),
      });
    });

    test('a payment not yet executed can be cancelled, and then not authorized', async () => {
      const initiated = await first.client.initiate(token, { path: PATH, body: domestic() });
      const paymentId = initiated.body.paymentId;
      assert.deepEqual(statusAndBody(await cancel(first, paymentId, token)), {
        status: 200,
        body: { paymentId, transactionStatus: 'CANC' },
      });
      const query = await first.client.authorize(`PIS:${paymentId}`, 's');
      assert.equal(query.get('error'), 'invalid_scope');
    });
  });
}
