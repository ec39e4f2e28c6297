// Exactly-once booking when the core banking system is not in our transaction: a fake external
// system behind the CoreBanking port keeps its bookings in its own memory, books idempotently under
// the order's key, and fails on purpose at each step: before booking, after booking (the answer is
// lost), while our process dies between booking and recording, and while our database refuses to
// record the outcome. Every payment ends booked once with the status the bank decided, through a
// retried execute or through the recovery of unanswered bookings.

import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { InitiationRequest } from '@psd2-gateway/client';
import { sql } from 'drizzle-orm';
import { addDays, dateIn } from '../../src/domain/dates.ts';
import type { BookingOrder, BookingOutcome, CoreBanking } from '../../src/ports/core-banking.ts';
import { recoverBookings } from '../../src/services/payments/booking.ts';
import { bookDuePayments } from '../../src/services/payments/due-payments.ts';
import {
  backends,
  type Gateway,
  manualClock,
  serviceContext,
  sibling,
  startGateway,
} from '../helpers/gateway.ts';
import { errorBody, KEY_IN_FLIGHT, KEY_REUSED } from '../helpers/http.ts';
import { domestic } from '../helpers/payments.ts';

/** What a client relies on of an answer: its status and whole body. */
const statusAndBody = (answer: { status: number; body: unknown }) => ({
  status: answer.status,
  body: answer.body,
});

const PRODUCT = 'handelsbanken-domestic-credit-transfer';
const PATH = `/psd2/se/v2/payments/private/single/${PRODUCT}`;
const BASKET = '/psd2/se/v2/payments/private/signing-basket';

type Step = 'answer' | 'fail-before-booking' | 'lose-answer' | 'hang' | 'refuse-recording';

/** A core banking system of its own: what it booked lives in its memory, never in our database. */
class ExternalCoreBanking implements CoreBanking {
  /** The outcome of each order, by key: asked again, the same outcome and no new booking. */
  readonly orders = new Map<string, BookingOutcome>();
  /** How often each payment was booked. */
  readonly bookings = new Map<string, number>();
  /** How often each order key was asked. */
  readonly asked = new Map<string, number>();
  step: Step = 'answer';
  /** How long the system takes to answer, in ms. */
  delayMs = 0;
  /** Which orders the bank rejects. */
  rejects: (order: BookingOrder) => BookingOutcome | undefined = () => undefined;
  private release: (() => void) | undefined;
  private booked: (() => void) | undefined;

  constructor(
    private readonly ledger: CoreBanking,
    private readonly onRecordingRefused: () => Promise<void>,
  ) {}

  findAccount: CoreBanking['findAccount'] = (lookup) => this.ledger.findAccount(lookup);
  findCardAccount: CoreBanking['findCardAccount'] = (id) => this.ledger.findCardAccount(id);
  balances: CoreBanking['balances'] = (ids) => this.ledger.balances(ids);
  statement: CoreBanking['statement'] = (id, period) => this.ledger.statement(id, period);
  availableFunds: CoreBanking['availableFunds'] = (source) => this.ledger.availableFunds(source);

  async book(order: BookingOrder): Promise<BookingOutcome> {
    this.asked.set(order.key, (this.asked.get(order.key) ?? 0) + 1);
    const step = this.step;
    if (this.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, this.delayMs));
    if (step === 'fail-before-booking') throw new Error('connect ECONNREFUSED core.bank.example:443');
    let outcome = this.orders.get(order.key);
    if (outcome === undefined) {
      outcome = this.rejects(order) ?? { booked: true };
      this.orders.set(order.key, outcome);
      if (outcome.booked) {
        for (const line of order.lines) {
          this.bookings.set(line.paymentId, (this.bookings.get(line.paymentId) ?? 0) + 1);
        }
      }
    }
    this.booked?.();
    if (step === 'lose-answer') throw new Error('socket hang up');
    if (step === 'refuse-recording') await this.onRecordingRefused();
    if (step === 'hang') await new Promise<void>((resolve) => (this.release = resolve));
    return outcome;
  }

  /** Resolves once the next order is booked (or found booked). */
  nextBooking(): Promise<void> {
    return new Promise((resolve) => (this.booked = resolve));
  }

  /** The hung call answers now (too late for the process that asked, in the story of the test). */
  answerHungCall(): void {
    this.release?.();
  }
}

for (const backend of backends()) {
  describe(`booking exactly once through an external core banking system, on ${backend}`, () => {
    const time = manualClock();
    let gateway: Gateway;
    let core: ExternalCoreBanking;
    let token: string;

    /** Makes our database refuse to move a payment out of ACTC/ACCP, as a failing write would. */
    const refuseRecording = () =>
      gateway.store.db
        .execute(
          sql`ALTER TABLE payments ADD CONSTRAINT test_no_settling CHECK (status IN ('ACTC', 'ACCP')) NOT VALID`,
        )
        .then(() => undefined);
    const allowRecording = () =>
      gateway.store.db.execute(sql`ALTER TABLE payments DROP CONSTRAINT IF EXISTS test_no_settling`);

    before(async () => {
      gateway = await startGateway({
        backend,
        clock: time.clock,
        coreBanking: (ledger) => {
          core = new ExternalCoreBanking(ledger, refuseRecording);
          return core;
        },
      });
      token = await gateway.client.clientCredentialsToken();
    });
    after(() => gateway.close());

    /** A payment initiated and authorized by its PSU: its id and the PSU's token. */
    async function authorized(body: InitiationRequest = domestic()) {
      const initiated = await gateway.client.initiate(token, { path: PATH, body });
      assert.equal(initiated.status, 200, JSON.stringify(initiated.body));
      const paymentId = initiated.body.paymentId;
      const psuToken = (await gateway.client.authorizeScope(`PIS:${paymentId}`)).access_token;
      return { paymentId, psuToken };
    }

    function execute(on: Gateway, id: string, psuToken: string, key = randomUUID()) {
      return on.client.request('PUT', `/psd2/v1/payments/${PRODUCT}/${id}`, {
        headers: { ...on.client.tppHeaders(psuToken), 'Idempotency-Key': `"${key}"` },
      });
    }

    async function statusOf(on: Gateway, paymentId: string) {
      return statusAndBody(await on.client.status(PRODUCT, paymentId, token, 'SE'));
    }

    function internalError(answer: { headers: Headers }) {
      const text = `An internal error occurred; correlation id ${answer.headers.get('x-correlation-id')}`;
      return { status: 500, body: errorBody(500, 'Internal Server Error', { code: 'INTERNAL_ERROR', text }) };
    }

    const settled = (paymentId: string) => ({ status: 200, body: { paymentId, transactionStatus: 'ACCC' } });
    const waiting = (paymentId: string) => ({ status: 200, body: { paymentId, transactionStatus: 'ACTC' } });

    async function cancelRefusedWhileBooking(paymentId: string) {
      const answer = await gateway.client.request('DELETE', `/psd2/v1/payments/${PRODUCT}/${paymentId}`, {
        headers: gateway.client.tppHeaders(token),
      });
      assert.deepEqual(statusAndBody(answer), {
        status: 405,
        body: errorBody(405, 'Method Not Allowed', {
          code: 'CANCELLATION_INVALID',
          text: `payment ${paymentId} is being booked and can no longer be cancelled`,
        }),
      });
    }

    test('the system fails before booking: 500, nothing booked, the retry under the same key books once', async () => {
      const { paymentId, psuToken } = await authorized();
      const key = randomUUID();
      core.step = 'fail-before-booking';
      const failed = await execute(gateway, paymentId, psuToken, key);
      assert.deepEqual(statusAndBody(failed), internalError(failed));
      assert.equal(core.bookings.get(paymentId), undefined);
      assert.deepEqual(await statusOf(gateway, paymentId), waiting(paymentId));
      // Our side cannot tell a refused connection from a lost answer: the booking stays under way.
      await cancelRefusedWhileBooking(paymentId);
      core.step = 'answer';
      const retried = await execute(gateway, paymentId, psuToken, key);
      assert.deepEqual(statusAndBody(retried), settled(paymentId));
      assert.equal(core.bookings.get(paymentId), 1);
      assert.deepEqual(await statusOf(gateway, paymentId), settled(paymentId));
    });

    test('the answer is lost after booking: a new execute asks again under the same key and books nothing more', async () => {
      const { paymentId, psuToken } = await authorized();
      core.step = 'lose-answer';
      const failed = await execute(gateway, paymentId, psuToken);
      assert.deepEqual(statusAndBody(failed), internalError(failed));
      assert.equal(core.bookings.get(paymentId), 1, 'the system booked it');
      assert.deepEqual(await statusOf(gateway, paymentId), waiting(paymentId));
      core.step = 'answer';
      assert.deepEqual(statusAndBody(await execute(gateway, paymentId, psuToken)), settled(paymentId));
      assert.deepEqual(statusAndBody(await execute(gateway, paymentId, psuToken)), settled(paymentId));
      assert.equal(core.bookings.get(paymentId), 1, 'booked once');
      assert.equal(core.asked.get(paymentId), 2, 'asked once more, under the same key; then no more');
    });

    test('our process dies between booking and recording: another process recovers it, booked once', async () => {
      const { paymentId, psuToken } = await authorized();
      core.step = 'hang';
      const booked = core.nextBooking();
      // The first process's call never comes back (it died with the answer on its way).
      const lost = execute(gateway, paymentId, psuToken);
      await booked;
      assert.equal(core.bookings.get(paymentId), 1);
      const second = await sibling(gateway, { clock: time.clock, coreBanking: () => core });
      try {
        assert.deepEqual(await statusOf(second, paymentId), waiting(paymentId));
        core.step = 'answer';
        const context = serviceContext(second, { clock: time.clock, coreBanking: core });
        assert.equal(await recoverBookings(context), 0, 'a booking under way is left alone for a while');
        time.advance(61_000);
        assert.equal(await recoverBookings(context), 1);
        assert.deepEqual(await statusOf(second, paymentId), settled(paymentId));
        assert.equal(core.bookings.get(paymentId), 1, 'booked once');
        assert.equal(await recoverBookings(context), 0, 'nothing left to recover');
        // The hung answer arrives after all: the payment is settled already, nothing moves twice.
        core.answerHungCall();
        assert.deepEqual(statusAndBody(await lost), settled(paymentId));
        assert.equal(core.bookings.get(paymentId), 1);
      } finally {
        await second.close();
      }
    });

    test('our database refuses to record the outcome: the recovery records it later, booked once', async () => {
      const { paymentId, psuToken } = await authorized();
      core.step = 'refuse-recording';
      try {
        const failed = await execute(gateway, paymentId, psuToken);
        assert.deepEqual(statusAndBody(failed), internalError(failed));
      } finally {
        await allowRecording();
      }
      assert.equal(core.bookings.get(paymentId), 1);
      assert.deepEqual(await statusOf(gateway, paymentId), waiting(paymentId));
      core.step = 'answer';
      time.advance(61_000);
      const context = serviceContext(gateway, { clock: time.clock, coreBanking: core });
      assert.equal(await recoverBookings(context), 1);
      assert.deepEqual(await statusOf(gateway, paymentId), settled(paymentId));
      assert.equal(core.bookings.get(paymentId), 1);
    });

    test('a rejection whose answer was lost stays a rejection when asked again', async () => {
      const { paymentId, psuToken } = await authorized(
        domestic({ instructedAmount: { currency: 'SEK', amount: '777.00' } }),
      );
      const rejection = { booked: false, reasonCode: 'AM04', reason: 'insufficient funds' } as const;
      core.rejects = (order) =>
        order.lines.some((line) => line.amount.minor === 77_700) ? rejection : undefined;
      core.step = 'lose-answer';
      try {
        const failed = await execute(gateway, paymentId, psuToken);
        assert.deepEqual(statusAndBody(failed), internalError(failed));
        // The money arrived meanwhile: the bank still answers what it answered.
        core.rejects = () => undefined;
        core.step = 'answer';
        const retried = await execute(gateway, paymentId, psuToken);
        assert.deepEqual(statusAndBody(retried), {
          status: 200,
          body: { paymentId, transactionStatus: 'RJCT', reasonCode: 'AM04', reason: 'insufficient funds' },
        });
        assert.equal(core.bookings.get(paymentId), undefined, 'nothing booked');
      } finally {
        core.rejects = () => undefined;
      }
    });

    test('a basket is one order: its answer lost, the retry books each payment once', async () => {
      const items = ['rent', 'water', 'power'].map((reference) => ({
        ...domestic(),
        paymentProduct: PRODUCT,
        tppPaymentReference: reference,
      }));
      const initiated = await gateway.client.request<{
        signingBaskedId: string;
        payments: { paymentId: string }[];
      }>('POST', BASKET, { headers: gateway.client.tppHeaders(token), json: { payments: items } });
      assert.equal(initiated.status, 200, JSON.stringify(initiated.body));
      const basketId = initiated.body.signingBaskedId;
      const psuToken = (await gateway.client.authorizeScope(`PIS:${basketId}`)).access_token;
      core.step = 'lose-answer';
      const failed = await execute(gateway, basketId, psuToken);
      assert.deepEqual(statusAndBody(failed), internalError(failed));
      core.step = 'answer';
      assert.deepEqual(statusAndBody(await execute(gateway, basketId, psuToken)), {
        status: 200,
        body: { signingBasketId: basketId, transactionStatus: 'ACCC' },
      });
      assert.deepEqual(core.asked.get(basketId), 2);
      for (const { paymentId } of initiated.body.payments) {
        assert.equal(core.bookings.get(paymentId), 1, paymentId);
        assert.deepEqual(await statusOf(gateway, paymentId), settled(paymentId));
      }
    });

    const inFlight = {
      status: 409,
      body: KEY_IN_FLIGHT,
    };

    test('its key while the bank books: 409 on either process, 422 for another payment, then the first answer', async () => {
      const { paymentId, psuToken } = await authorized();
      const other = await authorized();
      const second = await sibling(gateway, { clock: time.clock, coreBanking: () => core });
      try {
        const key = randomUUID();
        core.step = 'hang';
        const booked = core.nextBooking();
        const executing = execute(gateway, paymentId, psuToken, key);
        await booked;
        assert.deepEqual(statusAndBody(await execute(gateway, paymentId, psuToken, key)), inFlight);
        assert.deepEqual(statusAndBody(await execute(second, paymentId, psuToken, key)), inFlight);
        assert.deepEqual(statusAndBody(await execute(second, other.paymentId, other.psuToken, key)), {
          status: 422,
          body: KEY_REUSED,
        });
        // The key of another operation (a cancellation) is another key.
        const cancelled = await gateway.client.request(
          'DELETE',
          `/psd2/v1/payments/${PRODUCT}/${other.paymentId}`,
          { headers: { ...gateway.client.tppHeaders(token), 'Idempotency-Key': `"${key}"` } },
        );
        assert.deepEqual(statusAndBody(cancelled), {
          status: 200,
          body: { paymentId: other.paymentId, transactionStatus: 'CANC' },
        });
        core.step = 'answer';
        core.answerHungCall();
        assert.deepEqual(statusAndBody(await executing), settled(paymentId));
        assert.deepEqual(statusAndBody(await execute(second, paymentId, psuToken, key)), settled(paymentId));
        assert.equal(core.bookings.get(paymentId), 1);
        assert.equal(core.asked.get(paymentId), 1, 'the replay asks the bank nothing');
      } finally {
        await second.close();
      }
    });

    test('a key held by a request that hangs past its lease is taken by the retry; the late answer replays its answer', async () => {
      const { paymentId, psuToken } = await authorized();
      const key = randomUUID();
      core.step = 'hang';
      const booked = core.nextBooking();
      const executing = execute(gateway, paymentId, psuToken, key);
      await booked;
      assert.deepEqual(statusAndBody(await execute(gateway, paymentId, psuToken, key)), inFlight);
      // As when the process holding the key died: after the lease the key is free for the retry.
      time.advance(121_000);
      core.step = 'answer';
      assert.deepEqual(statusAndBody(await execute(gateway, paymentId, psuToken, key)), settled(paymentId));
      core.answerHungCall();
      assert.deepEqual(statusAndBody(await executing), settled(paymentId));
      assert.deepEqual(await statusOf(gateway, paymentId), settled(paymentId));
      assert.equal(core.bookings.get(paymentId), 1);
    });

    test('20 executions of one payment at once on two processes, the system slow: one booking', async () => {
      const { paymentId, psuToken } = await authorized();
      const second = await sibling(gateway, { clock: time.clock, coreBanking: () => core });
      try {
        core.step = 'answer';
        core.delayMs = 25;
        const answers = await Promise.all(
          Array.from({ length: 20 }, (_, index) =>
            execute(index % 2 === 0 ? gateway : second, paymentId, psuToken),
          ),
        );
        for (const answer of answers) assert.deepEqual(statusAndBody(answer), settled(paymentId));
        assert.equal(core.bookings.get(paymentId), 1);
      } finally {
        core.delayMs = 0;
        await second.close();
      }
    });

    test('a future-dated payment whose booking answer is lost on its date: the recovery settles it, booked once', async () => {
      const tomorrow = addDays(dateIn(time.clock(), 'Europe/Stockholm'), 1);
      const { paymentId, psuToken } = await authorized(domestic({ requestedExecutionDate: tomorrow }));
      assert.deepEqual(statusAndBody(await execute(gateway, paymentId, psuToken)), {
        status: 200,
        body: { paymentId, transactionStatus: 'ACCP' },
      });
      assert.equal(core.asked.get(paymentId), undefined, 'nothing is asked before the date');
      time.advance(86_400_000);
      token = await gateway.client.clientCredentialsToken();
      const context = serviceContext(gateway, { clock: time.clock, coreBanking: core });
      core.step = 'lose-answer';
      await assert.rejects(bookDuePayments(context), /socket hang up/);
      core.step = 'answer';
      assert.equal(await bookDuePayments(context), 0, 'a booking under way is not asked twice');
      time.advance(61_000);
      assert.equal(await recoverBookings(context), 1);
      assert.deepEqual(await statusOf(gateway, paymentId), settled(paymentId));
      assert.equal(core.bookings.get(paymentId), 1);
    });
  });
}
