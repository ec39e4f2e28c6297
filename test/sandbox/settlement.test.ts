// The sandbox's settlement scenarios over HTTP, on PGlite and on PostgreSQL: a payment to SEB account
// 5000 9001018 is accepted at execution (ACCP, pending in the debtor's transactions) and settles to
// ACSC on the next bank day (booked), once the app's clock is advanced past it, and not before; one to
// 5000 9001026 ends RJCT AC04 at its settlement.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { TppClient } from '@psd2-gateway/client';
import { SETTLEMENT_CREDITORS } from '../../src/sandbox/scenarios.ts';
import { backends, bankDate, type Gateway, startGateway } from '../helpers/gateway.ts';
import { ACCOUNTS, otherBank } from '../helpers/payments.ts';
import { advanceClock } from '../helpers/sandbox-clock.ts';

const PRODUCT = 'other-bank-domestic-credit-transfer';
const PATH = `/psd2/se/v2/payments/private/single/${PRODUCT}`;
// A Wednesday morning in Stockholm, ticking: the next bank day is Thursday, a minute later is not.
const WEDNESDAY = Date.parse('2026-11-25T09:00:00Z');
const started = Date.now();
const whole = (answer: { status: number; body: unknown }) => ({ status: answer.status, body: answer.body });

for (const backend of backends()) {
  describe(`settlement scenarios on ${backend}`, () => {
    let gateway: Gateway;
    let client: TppClient;
    let token: string;
    let ais: string;
    before(async () => {
      gateway = await startGateway({ backend, clock: () => new Date(WEDNESDAY + (Date.now() - started)) });
      client = gateway.client;
      token = await client.clientCredentialsToken();
      ais = await client.clientCredentialsToken('AIS');
    });
    after(() => gateway.close());

    async function executedTo(creditor: string, remittance: string) {
      const initiated = await client.initiate(token, {
        path: PATH,
        body: otherBank({
          creditorAccount: { value: creditor, accountType: 'BBAN' },
          remittanceInformationUnstructured: remittance,
        }),
      });
      assert.equal(initiated.status, 200, JSON.stringify(initiated.body));
      const paymentId = initiated.body.paymentId;
      const psuToken = (await client.authorizeScope(`PIS:${paymentId}`)).access_token;
      return { paymentId, executed: whole(await client.execute(PRODUCT, paymentId, psuToken)) };
    }

    /** Tolvan's account's transactions with this remittance, under a fresh consent. */
    async function linesOf(remittance: string) {
      const created = await client.createConsent(ais, { body: { access: 'ALL_ACCOUNTS' } });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const tokens = await client.authorizeScope(`AIS:${created.body.consentId}`);
      const answer = await client.accounts.transactions(ACCOUNTS.tolvan.accountId, tokens.access_token);
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
      const transactions = (answer.body as unknown as { transactions: Record<string, unknown>[] })
        .transactions;
      return transactions.filter((line) => line.remittanceInformation === remittance);
    }

    test('ACCP at execution and pending; not settled before the next bank day; then ACSC and booked', async () => {
      const remittance = backend === 'pglite' ? 'Settles pg' : 'Settles sql';
      const { paymentId, executed } = await executedTo(SETTLEMENT_CREDITORS.settles, remittance);
      assert.deepEqual(executed, { status: 200, body: { paymentId, transactionStatus: 'ACCP' } });
      assert.deepEqual(whole(await client.status(PRODUCT, paymentId, token, 'SE')), {
        status: 200,
        body: { paymentId, transactionStatus: 'ACCP' },
      });
      const line = {
        amount: { content: '99.90', currency: 'SEK' },
        // Pending: the payment's creation day, the database's (real time), not the app's.
        transactionDate: bankDate(),
        creditDebit: 'DEBITED',
        creditorName: 'Sven Svensson',
        debtorName: 'Tolvan Tolvansson',
        remittanceInformation: remittance,
      };
      assert.deepEqual(await linesOf(remittance), [{ ...line, valueDate: '2026-11-26', status: 'PENDING' }]);

      // A minute later it is still Wednesday: nothing settles.
      assert.equal((await advanceClock(client, token, { advance: 'PT1M' })).status, 200);
      assert.deepEqual(whole(await client.status(PRODUCT, paymentId, token, 'SE')), {
        status: 200,
        body: { paymentId, transactionStatus: 'ACCP' },
      });

      const advanced = await client.advanceSandboxClock(token, 'P1D');
      assert.deepEqual(
        { status: advanced.status, offset: (advanced.body as { offset: string }).offset },
        { status: 200, offset: 'P1DT1M' },
      );
      assert.deepEqual(whole(await client.status(PRODUCT, paymentId, token, 'SE')), {
        status: 200,
        body: { paymentId, transactionStatus: 'ACSC' },
      });
      const bookedOn = '2026-11-26';
      assert.deepEqual(await linesOf(remittance), [
        {
          ...line,
          transactionDate: bookedOn,
          valueDate: bookedOn,
          status: 'BOOKED',
          bookingDate: bookedOn,
          ledgerDate: bookedOn,
        },
      ]);
    });

    test('a payment to the closed account: ACCP, then RJCT AC04 with its reason in the status', async () => {
      const { paymentId, executed } = await executedTo(SETTLEMENT_CREDITORS.closed, 'Closed');
      assert.deepEqual(executed, { status: 200, body: { paymentId, transactionStatus: 'ACCP' } });
      assert.equal((await advanceClock(client, token, { advance: 'P3D' })).status, 200);
      assert.deepEqual(whole(await client.status(PRODUCT, paymentId, token, 'SE')), {
        status: 200,
        body: {
          paymentId,
          transactionStatus: 'RJCT',
          reasonCode: 'AC04',
          reason: 'the creditor account is closed',
        },
      });
      assert.deepEqual(await linesOf('Closed'), []);
    });
  });
}
