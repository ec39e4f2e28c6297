// The sandbox's data lives in the ledger: a balanced history of months behind the documented balances,
// the same for a given day; POST /sandbox/reset restores it and removes what TPPs did, keeping the
// TPP's app and client token. On PGlite and on PostgreSQL.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { addDays } from '../../src/domain/dates.ts';
import { HISTORY_DAYS, sandboxHistory } from '../../src/sandbox/history.ts';
import { TEST_ACCOUNTS, TEST_CARD_ACCOUNTS } from '../../src/sandbox/test-data.ts';
import { bookedBalance, entryTotals } from '../../src/store/ledger/balances.ts';
import { backends, bankDate, type Gateway, queryRows, startGateway } from '../helpers/gateway.ts';
import { call, NOT_FOUND } from '../helpers/http.ts';
import { ACCOUNTS, domestic } from '../helpers/payments.ts';

test('the history is deterministic for a day, balanced, within its months, and names both sides', () => {
  const day = '2026-11-21';
  const history = sandboxHistory(day);
  assert.deepEqual(sandboxHistory(day), history);
  assert.notDeepEqual(sandboxHistory('2026-11-22'), history);
  assert.ok(history.length > 300, `${history.length} bookings`);
  for (const booking of history) {
    const sum = booking.entries.reduce((total, entry) => total + entry.amountMinor, 0);
    assert.equal(sum, 0, booking.bookingId);
    assert.ok(booking.bookedOn < day && booking.bookedOn >= addDays(day, -HISTORY_DAYS), booking.bookedOn);
    assert.ok(booking.transactionDate <= booking.bookedOn, booking.bookingId);
    assert.ok(
      booking.debtorName !== '' && booking.creditorName !== '' && booking.remittance !== '',
      booking.bookingId,
    );
  }
  const ledgerAccounts = new Set(
    history.flatMap((booking) => booking.entries.map((entry) => entry.ledgerAccount)),
  );
  for (const row of TEST_ACCOUNTS.filter((account) => account.accountType === 'CACC')) {
    assert.ok(ledgerAccounts.has(row.accountId), `${row.name} of ${row.ownerName} has a history`);
  }
  for (const row of TEST_CARD_ACCOUNTS) assert.ok(ledgerAccounts.has(row.cardAccountId), row.cardAccountId);
});

for (const backend of backends()) {
  describe(`sandbox reset on ${backend}`, () => {
    let gateway: Gateway;
    before(async () => {
      gateway = await startGateway({ backend });
    });
    after(() => gateway.close());

    const count = async (table: string) =>
      (await queryRows<{ n: number }>(gateway.store, sql.raw(`SELECT count(*)::int AS n FROM ${table}`)))[0]!
        .n;

    test('seeded: every account holds its documented balance after its history; the ledger sums to zero', async () => {
      for (const row of TEST_ACCOUNTS) {
        assert.equal(await bookedBalance(gateway.store.db, row.accountId), row.balanceMinor, row.accountId);
      }
      for (const [currency, total] of await entryTotals(gateway.store.db)) assert.equal(total, 0, currency);
    });

    test('POST /sandbox/reset: payments, consents and PSU tokens go; balances and history come back; the app stays', async () => {
      const client = gateway.client;
      const token = await client.clientCredentialsToken();
      const bookingsBefore = await count('bookings');
      const initiated = await client.initiate(token, {
        path: '/psd2/se/v2/payments/private/single/handelsbanken-domestic-credit-transfer',
        body: domestic(),
      });
      const psuToken = (await client.authorizeScope(`PIS:${initiated.body.paymentId}`)).access_token;
      const executed = await client.execute(
        'handelsbanken-domestic-credit-transfer',
        initiated.body.paymentId,
        psuToken,
      );
      assert.equal(executed.body.transactionStatus, 'ACCC');
      // Read once: a payment in a final status is then answered from memory, until the reset.
      const read = () =>
        client.status('handelsbanken-domestic-credit-transfer', initiated.body.paymentId, token, 'SE');
      const settled = await read();
      assert.deepEqual(
        { status: settled.status, body: settled.body },
        { status: 200, body: { paymentId: initiated.body.paymentId, transactionStatus: 'ACCC' } },
      );
      await client.createConsent(await client.clientCredentialsToken('AIS'));
      await gateway.store.db.execute(
        sql`UPDATE accounts SET blocked = true, daily_limit_minor = 100 WHERE account_id = ${ACCOUNTS.agda.accountId}`,
      );
      assert.equal(await count('bookings'), bookingsBefore + 1);

      const answer = await call(gateway.app, 'POST', '/sandbox/reset');
      const today = bankDate();
      assert.deepEqual(
        { status: answer.status, body: answer.body },
        { status: 200, body: { reset: true, date: today } },
      );

      assert.equal(await count('payments'), 0);
      assert.equal(await count('consents'), 0);
      assert.equal(await count('bookings'), bookingsBefore, 'the history alone, booked again');
      assert.equal(await count("access_tokens WHERE kind <> 'client_credentials'"), 0, 'PSU tokens are gone');
      for (const row of TEST_ACCOUNTS) {
        assert.equal(await bookedBalance(gateway.store.db, row.accountId), row.balanceMinor, row.accountId);
      }
      const [agda] = await queryRows<{ blocked: boolean; limit: string | null }>(
        gateway.store,
        sql`SELECT blocked, daily_limit_minor AS limit FROM accounts WHERE account_id = ${ACCOUNTS.agda.accountId}`,
      );
      assert.deepEqual(agda, { blocked: false, limit: null });
      for (const [currency, total] of await entryTotals(gateway.store.db)) assert.equal(total, 0, currency);

      // The TPP's app and client token still work; the payment is gone.
      const status = await read();
      assert.deepEqual(
        { status: status.status, body: status.body },
        NOT_FOUND({
          code: 'RESOURCE_UNKNOWN',
          path: 'paymentId',
          text: 'There is no payment with this paymentId',
        }),
      );
      const again = await client.initiate(token, {
        path: '/psd2/se/v2/payments/private/single/handelsbanken-domestic-credit-transfer',
        body: domestic(),
      });
      assert.equal(again.status, 200);
    });

    test('a live gateway has no reset', async () => {
      const live = await startGateway({ store: gateway.store, config: { mode: 'live' } });
      try {
        assert.equal((await call(live.app, 'POST', '/sandbox/reset')).status, 404);
      } finally {
        await live.close();
      }
    });
  });
}
