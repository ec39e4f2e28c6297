// The built-in core banking ledger: bookings balance per currency, executed payments move money,
// live mode rejects what the account cannot pay and books nothing then, and concurrent executions on
// two gateways sharing one database book each payment once and never overdraw.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { InitiationRequest, TppClient } from '@psd2-gateway/client';
import { sql } from 'drizzle-orm';
import { addDays } from '../../src/domain/dates.ts';
import { issuePsuTokens } from '../../src/services/access/tokens.ts';
import { bookedBalance, entriesSum, entryTotals } from '../../src/store/ledger/balances.ts';
import { insertHistory } from '../../src/store/ledger/history.ts';
import {
  backends,
  bankDate,
  type Gateway,
  type GatewayPair,
  queryRows,
  serviceContext,
  setBalance,
  startGateway,
  startGatewayPair,
  type TestStore,
} from '../helpers/gateway.ts';
import { ACCOUNTS, crossCurrency, domestic, otherBank } from '../helpers/payments.ts';
import { livePsuToken } from '../helpers/psu-pages.ts';

const DOMESTIC = 'handelsbanken-domestic-credit-transfer';
const AGDA = '198112289874';
const OTHER_BANK = 'other-bank-domestic-credit-transfer';

/** Initiates, authorizes (sandbox at once; live through the PSU pages as `psuId`) and executes. */
async function executedPayment(
  gateway: Gateway,
  client: TppClient,
  token: string,
  product: string,
  body: InitiationRequest,
  psuId?: string,
) {
  const initiated = await client.initiate(token, {
    path: `/psd2/se/v2/payments/private/single/${product}`,
    body,
  });
  assert.equal(initiated.status, 200, JSON.stringify(initiated.body));
  const paymentId = initiated.body.paymentId;
  if (psuId === undefined)
    return { paymentId, executed: await client.authorizeAndExecute(product, paymentId) };
  const psuToken = await livePsuToken(gateway, client, `PIS:${paymentId}`, psuId);
  return { paymentId, executed: await client.execute(product, paymentId, psuToken) };
}

async function bookingsOf(store: TestStore, paymentId: string): Promise<number> {
  return (
    await queryRows<{ n: number }>(
      store,
      sql`SELECT count(*)::int AS n FROM bookings WHERE payment_id = ${paymentId}`,
    )
  )[0]!.n;
}

describe('sandbox ledger', () => {
  let gateway: Gateway;
  let token: string;
  before(async () => {
    gateway = await startGateway();
    token = await gateway.client.clientCredentialsToken();
  });
  after(() => gateway.close());

  test('within the bank the creditor account is credited; to another bank the clearing account; abroad through fx', async () => {
    const db = gateway.store.db;
    const before = {
      tolvan: await entriesSum(db, ACCOUNTS.tolvan.accountId),
      agda: await entriesSum(db, ACCOUNTS.agda.accountId),
    };
    await executedPayment(gateway, gateway.client, token, DOMESTIC, domestic());
    assert.equal(await entriesSum(db, ACCOUNTS.tolvan.accountId), before.tolvan - 12550);
    assert.equal(await entriesSum(db, ACCOUNTS.agda.accountId), before.agda + 12550);
    const clearing = await entriesSum(db, 'clearing:SEK');
    await executedPayment(gateway, gateway.client, token, OTHER_BANK, otherBank());
    assert.equal(await entriesSum(db, 'clearing:SEK'), clearing + 9990);
    await executedPayment(gateway, gateway.client, token, 'cross-currency-credit-transfer', crossCurrency());
    assert.equal(await entriesSum(db, 'clearing:USD'), 25000);
    assert.equal(await entriesSum(db, 'fx:SEK'), 265000, 'USD 250.00 at 10.60 SEK');
    const totals = await entryTotals(db);
    for (const [currency, total] of totals) assert.equal(total, 0, `entries of ${currency} sum to zero`);
  });
});

for (const backend of backends()) {
  describe(`live ledger on ${backend}`, () => {
    let pair: GatewayPair;
    let store: TestStore;
    let first: Gateway;
    let second: Gateway;
    let token: string;
    const agda = ACCOUNTS.agda;
    before(async () => {
      pair = await startGatewayPair(backend, { config: { mode: 'live' } });
      ({ store, first, second } = pair);
      token = await first.client.clientCredentialsToken();
    });
    after(() => pair.close());

    const fromAgda = (amount: string) =>
      domestic({
        debtorAccount: { value: agda.bban!, accountType: 'BBAN' },
        creditorAccount: { value: ACCOUNTS.tolvan.bban!, accountType: 'BBAN' },
        instructedAmount: { currency: 'SEK', amount },
      });

    test('insufficient funds, a blocked account, a daily limit: RJCT with a reason, nothing booked', async () => {
      await setBalance(store, agda.accountId, 1000);
      const poor = await executedPayment(first, first.client, token, DOMESTIC, fromAgda('20.00'), AGDA);
      assert.deepEqual(
        [poor.executed.status, poor.executed.body],
        [
          200,
          {
            paymentId: poor.paymentId,
            transactionStatus: 'RJCT',
            reasonCode: 'AM04',
            reason: 'insufficient funds on the debtor account',
          },
        ],
      );
      assert.equal(await bookingsOf(store, poor.paymentId), 0);
      const status = await first.client.status(DOMESTIC, poor.paymentId, token, 'SE');
      assert.deepEqual(status.body, {
        paymentId: poor.paymentId,
        transactionStatus: 'RJCT',
        reasonCode: 'AM04',
        reason: 'insufficient funds on the debtor account',
      });

      await setBalance(store, agda.accountId, 1000000);
      await store.db.execute(sql`UPDATE accounts SET blocked = true WHERE account_id = ${agda.accountId}`);
      const blocked = await executedPayment(first, first.client, token, DOMESTIC, fromAgda('20.00'), AGDA);
      assert.deepEqual(blocked.executed.body, {
        paymentId: blocked.paymentId,
        transactionStatus: 'RJCT',
        reasonCode: 'AC06',
        reason: 'the debtor account is blocked',
      });

      // Debits of another day do not count against the limit: yesterday's 25.00 leaves today's 20.00 within.
      const yesterday = addDays(bankDate(), -1);
      await insertHistory(
        store.db,
        [
          {
            bookingId: `daily-limit-${yesterday}`,
            bookedOn: yesterday,
            transactionDate: yesterday,
            debtorName: 'Agda Andersson',
            creditorName: 'ICA Maxi',
            remittance: 'Kortköp',
            entries: [
              { ledgerAccount: agda.accountId, currency: 'SEK', amountMinor: -2500 },
              { ledgerAccount: 'clearing:SEK', currency: 'SEK', amountMinor: 2500 },
            ],
          },
        ],
        new Date(),
      );
      await store.db.execute(
        sql`UPDATE accounts SET blocked = false, daily_limit_minor = 3000 WHERE account_id = ${agda.accountId}`,
      );
      const within = await executedPayment(first, first.client, token, DOMESTIC, fromAgda('20.00'), AGDA);
      assert.equal(within.executed.body.transactionStatus, 'ACCC');
      const over = await executedPayment(first, first.client, token, DOMESTIC, fromAgda('20.00'), AGDA);
      assert.deepEqual(over.executed.body, {
        paymentId: over.paymentId,
        transactionStatus: 'RJCT',
        reasonCode: 'AM02',
        reason: 'the daily limit of the debtor account is exceeded',
      });
      await store.db.execute(
        sql`UPDATE accounts SET daily_limit_minor = NULL WHERE account_id = ${agda.accountId}`,
      );
    });

    /** Payments from Agda, initiated and authorized by her (tokens issued as her e-ID approval would). */
    async function authorizedPayments(count: number, amount: string) {
      const context = serviceContext(first);
      return Promise.all(
        Array.from({ length: count }, async () => {
          const initiated = await first.client.initiate(token, {
            path: `/psd2/se/v2/payments/private/single/${DOMESTIC}`,
            body: fromAgda(amount),
          });
          const scope = `PIS:${initiated.body.paymentId}`;
          const psuToken = (
            await issuePsuTokens(store.db, context, {
              kind: 'decoupled',
              clientId: first.client.clientId,
              scope,
              psuId: AGDA,
              codeHash: null,
            })
          ).access_token;
          return { paymentId: initiated.body.paymentId, psuToken };
        }),
      );
    }

    test('100 payments at once from an account with funds for 50, on two gateways: 50 booked, 50 rejected, balance exact', async () => {
      await setBalance(store, agda.accountId, 50 * 1000);
      const prepared = await authorizedPayments(100, '10.00');
      const results = await Promise.all(
        prepared.map(({ paymentId, psuToken }, index) =>
          (index % 2 === 0 ? first : second).client.execute(DOMESTIC, paymentId, psuToken),
        ),
      );
      const statuses = results.map((result) => result.body.transactionStatus);
      assert.equal(statuses.filter((status) => status === 'ACCC').length, 50);
      assert.equal(statuses.filter((status) => status === 'RJCT').length, 50);
      assert.equal(
        await bookedBalance(store.db, agda.accountId),
        0,
        'the account is exactly empty, never below',
      );
      for (const [currency, total] of await entryTotals(store.db)) assert.equal(total, 0, currency);
    });

    test('one payment executed 50 times at once on two gateways: one booking', async () => {
      await setBalance(store, agda.accountId, 100000);
      const { paymentId, psuToken } = (await authorizedPayments(1, '10.00'))[0]!;
      const results = await Promise.all(
        Array.from({ length: 50 }, (_, index) =>
          (index % 2 === 0 ? first : second).client.execute(DOMESTIC, paymentId, psuToken),
        ),
      );
      assert.deepEqual(new Set(results.map((result) => result.body.transactionStatus)), new Set(['ACCC']));
      assert.equal(await bookingsOf(store, paymentId), 1);
      assert.equal(await bookedBalance(store.db, agda.accountId), 100000 - 1000, 'debited once');
    });
  });
}
