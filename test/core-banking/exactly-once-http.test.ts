// Exactly once end to end with the bank's core banking system over HTTP: a gateway whose CoreBanking
// is the HTTP adapter, against the stand-in bank (test/stand-ins/core-banking.ts), which rejects what
// an account cannot pay (AM04, AC06) as a live bank does. Payments are initiated, authorized and
// executed while the bank fails, answers late, drops connections, handles requests twice, stays down
// beyond the retries, or while a gateway process "dies" between the booking and its recording: each
// payment is booked once in the bank's book and ends in a final status, through the retries, a new
// execute, or the recovery of unanswered bookings (recoverBookings, as the scheduler runs it).

import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, afterEach, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { InitiationRequest } from '@psd2-gateway/client';
import {
  type HttpCoreBanking,
  httpCoreBanking,
} from '../../src/adapters/http-core-banking/http-core-banking.ts';
import { recoverBookings } from '../../src/services/payments/booking.ts';
import {
  backends,
  type Gateway,
  manualClock,
  serviceContext,
  sibling,
  startGateway,
} from '../helpers/gateway.ts';
import { ACCOUNTS, domestic } from '../helpers/payments.ts';
import { type CoreBankingStandIn, startCoreBankingStandIn } from '../stand-ins/core-banking.ts';
import { bankIdOf } from '../stand-ins/core-banking-book.ts';

const PRODUCT = 'handelsbanken-domestic-credit-transfer';
const PATH = `/psd2/se/v2/payments/private/single/${PRODUCT}`;
/** Each attempt 300 ms; five attempts with pauses from 20 ms: about 2 s before the outcome is unknown. */
const ADAPTER = { timeoutMs: 300, retry: { attempts: 5, baseDelayMs: 20, maxDelayMs: 200 } };

for (const backend of backends()) {
  describe(`exactly once through the core banking system over HTTP, on ${backend}`, () => {
    const time = manualClock();
    let bank: CoreBankingStandIn;
    let core: HttpCoreBanking;
    let gateway: Gateway;
    let token: string;

    before(async () => {
      bank = await startCoreBankingStandIn();
      core = httpCoreBanking({ url: bank.url, ...ADAPTER });
      gateway = await startGateway({ backend, clock: time.clock, coreBanking: () => core });
      token = await gateway.client.clientCredentialsToken();
    });
    after(async () => {
      await gateway.close();
      core.close();
      await bank.close();
    });
    afterEach(() => assert.deepEqual(bank.violations.splice(0), []));

    async function authorized(body: InitiationRequest = domestic()) {
      const initiated = await gateway.client.initiate(token, { path: PATH, body });
      assert.equal(initiated.status, 200, JSON.stringify(initiated.body));
      const paymentId = initiated.body.paymentId;
      const psuToken = (await gateway.client.authorizeScope(`PIS:${paymentId}`)).access_token;
      return { paymentId, psuToken };
    }

    async function execute(on: Gateway, paymentId: string, psuToken: string) {
      const answer = await on.client.request('PUT', `/psd2/v1/payments/${PRODUCT}/${paymentId}`, {
        headers: { ...on.client.tppHeaders(psuToken), 'TPP-Request-ID': randomUUID() },
      });
      return { status: answer.status, body: answer.body };
    }

    async function statusOf(paymentId: string) {
      const answer = await gateway.client.status(PRODUCT, paymentId, token, 'SE');
      return { status: answer.status, body: answer.body };
    }

    const settled = (paymentId: string) => ({ status: 200, body: { paymentId, transactionStatus: 'ACCC' } });

    test('the bank fails, answers late, drops the connection, handles a request twice: each payment booked once, ACCC', async () => {
      const faults = [
        { kind: 'fail-before', status: 503 },
        { kind: 'fail-after', status: 500 },
        { kind: 'answer-late', ms: 450 },
        { kind: 'drop-after' },
        { kind: 'duplicate' },
      ] as const;
      for (const fault of faults) {
        const { paymentId, psuToken } = await authorized();
        bank.script(fault, fault.kind === 'duplicate' ? 1 : 3);
        assert.deepEqual(await execute(gateway, paymentId, psuToken), settled(paymentId), fault.kind);
        assert.equal(bank.book.bookings.get(paymentId), 1, fault.kind);
        assert.deepEqual(await statusOf(paymentId), settled(paymentId));
      }
    });

    test('what the account cannot pay ends RJCT with the bank’s reason, nothing booked', async () => {
      const held = bank.book.accounts.get(bankIdOf(ACCOUNTS.tolvan.accountId))!;
      const balance = held.balanceMinor;
      try {
        bank.book.setBalance(bankIdOf(ACCOUNTS.tolvan.accountId), 100_00);
        const poor = await authorized();
        bank.script({ kind: 'drop-after' });
        assert.deepEqual(await execute(gateway, poor.paymentId, poor.psuToken), {
          status: 200,
          body: {
            paymentId: poor.paymentId,
            transactionStatus: 'RJCT',
            reasonCode: 'AM04',
            reason: 'insufficient funds on the debtor account',
          },
        });
        bank.book.setBalance(bankIdOf(ACCOUNTS.tolvan.accountId), balance);
        held.blocked = true;
        const blocked = await authorized();
        assert.deepEqual((await execute(gateway, blocked.paymentId, blocked.psuToken)).body, {
          paymentId: blocked.paymentId,
          transactionStatus: 'RJCT',
          reasonCode: 'AC06',
          reason: 'the debtor account is blocked',
        });
        assert.equal(bank.book.bookings.get(poor.paymentId), undefined);
        assert.equal(bank.book.bookings.get(blocked.paymentId), undefined);
      } finally {
        held.blocked = false;
        bank.book.setBalance(bankIdOf(ACCOUNTS.tolvan.accountId), balance);
      }
    });

    test('the bank down beyond the retries, before and after booking: 503, then the recovery settles each, booked once', async () => {
      const before = await authorized();
      bank.script({ kind: 'fail-before' }, ADAPTER.retry.attempts);
      assert.equal((await execute(gateway, before.paymentId, before.psuToken)).status, 503);
      const afterBooking = await authorized();
      bank.script({ kind: 'fail-after' }, ADAPTER.retry.attempts);
      assert.equal((await execute(gateway, afterBooking.paymentId, afterBooking.psuToken)).status, 503);
      assert.equal(bank.book.bookings.get(before.paymentId), undefined);
      assert.equal(bank.book.bookings.get(afterBooking.paymentId), 1, 'booked, though no answer said so');
      for (const { paymentId } of [before, afterBooking]) {
        assert.deepEqual((await statusOf(paymentId)).body, { paymentId, transactionStatus: 'ACTC' });
      }
      const context = serviceContext(gateway, { clock: time.clock, coreBanking: core });
      assert.equal(await recoverBookings(context), 0, 'a booking under way is left alone for a while');
      time.advance(61_000);
      assert.equal(await recoverBookings(context), 2);
      for (const { paymentId } of [before, afterBooking]) {
        assert.deepEqual(await statusOf(paymentId), settled(paymentId));
        assert.equal(bank.book.bookings.get(paymentId), 1);
      }
    });

    test('a gateway process dies between booking and recording: another recovers it, booked once', async () => {
      // The dying process waits long for its answer; the bank books and holds the answer back.
      const patient = httpCoreBanking({ url: bank.url, timeoutMs: 60_000, retry: { attempts: 1 } });
      const dying = await sibling(gateway, { clock: time.clock, coreBanking: () => patient });
      try {
        const { paymentId, psuToken } = await authorized();
        bank.script({ kind: 'hold' });
        const lost = execute(dying, paymentId, psuToken);
        while (!bank.book.bookings.has(paymentId)) await sleep(5);
        const context = serviceContext(gateway, { clock: time.clock, coreBanking: core });
        assert.equal(await recoverBookings(context), 0);
        time.advance(61_000);
        assert.equal(await recoverBookings(context), 1);
        assert.deepEqual(await statusOf(paymentId), settled(paymentId));
        // The held answer arrives after all: nothing moves twice, nothing is booked twice.
        bank.release();
        assert.deepEqual(await lost, settled(paymentId));
        assert.equal(bank.book.bookings.get(paymentId), 1);
      } finally {
        await dying.close();
        patient.close();
      }
    });

    test('20 executions of one payment at once on two processes, the order in progress at the bank: one booking', async () => {
      const second = await sibling(gateway, { clock: time.clock, coreBanking: () => core });
      try {
        const { paymentId, psuToken } = await authorized();
        bank.script({ kind: 'in-progress', ms: 150 });
        const answers = await Promise.all(
          Array.from({ length: 20 }, (_, index) =>
            execute(index % 2 === 0 ? gateway : second, paymentId, psuToken),
          ),
        );
        for (const answer of answers) assert.deepEqual(answer, settled(paymentId));
        assert.equal(bank.book.bookings.get(paymentId), 1);
      } finally {
        await second.close();
      }
    });
  });
}
