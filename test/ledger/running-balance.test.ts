// The booked balance the database keeps beside each account (migration 0017) is always its opening
// balance plus every entry: after concurrent orders that debit and credit the same accounts both ways
// (the booking call locks them in one order: none deadlocks), through fx, rejected or booked; after a
// new opening balance; for an account created after entries that name it. And entries never change.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { ledgerCoreBanking } from '../../src/adapters/ledger-core-banking.ts';
import { sandboxRates } from '../../src/adapters/sandbox-rates.ts';
import type { BookingLine, BookingOutcome } from '../../src/ports/core-banking.ts';
import { EXAMPLE_CREDITORS } from '../../src/sandbox/test-data.ts';
import { bookedBalances, entriesSum, entryTotals } from '../../src/store/ledger/balances.ts';
import { backends, bankDate, type Gateway, queryRows, setBalance, startGateway } from '../helpers/gateway.ts';
import { ACCOUNTS, domestic } from '../helpers/payments.ts';

const { tolvan, agda } = ACCOUNTS;
const PATH = '/psd2/se/v2/payments/private/single/handelsbanken-domestic-credit-transfer';

/** Accounts and card accounts whose kept balance is not their opening balance plus their entries. */
async function driftedBalances(gateway: Gateway) {
  return queryRows(
    gateway.store,
    sql`SELECT id, kept, computed FROM (
          SELECT a.account_id AS id, a.booked_minor::text AS kept,
                 (a.balance_minor + coalesce((SELECT sum(e.amount_minor) FROM ledger_entries e
                                               WHERE e.ledger_account = a.account_id), 0))::text AS computed
            FROM accounts a
          UNION ALL
          SELECT c.card_account_id, c.booked_minor::text,
                 (c.balance_minor + coalesce((SELECT sum(e.amount_minor) FROM ledger_entries e
                                               WHERE e.ledger_account = c.card_account_id), 0))::text
            FROM card_accounts c) AS balances
         WHERE kept <> computed`,
  );
}

for (const backend of backends()) {
  describe(`the kept booked balance on ${backend}`, () => {
    let gateway: Gateway;
    let paymentIds: string[];
    before(async () => {
      gateway = await startGateway({ backend });
      const token = await gateway.client.clientCredentialsToken();
      paymentIds = [];
      // Payments for the bookings to name (the ledger books lines, whatever their payments say).
      for (let index = 0; index < 48; index++) {
        const answer = await gateway.client.initiate(token, { path: PATH, body: domestic() });
        assert.equal(answer.status, 200, JSON.stringify(answer.body));
        paymentIds.push(answer.body.paymentId);
      }
    });
    after(() => gateway.close());

    test('48 orders at once, both ways between two accounts, abroad, through fx, some refused: balances exact', async () => {
      const db = gateway.store.db;
      const ledger = ledgerCoreBanking({
        db,
        enforceFunds: true,
        rates: sandboxRates,
        clock: () => new Date(),
      });
      // Agda pays 12 times 150.00 from 500.00 and Tolvan's 12 payments of 100.00 to her: 1 to 9 are refused.
      await setBalance(gateway.store, agda.accountId, 500_00);
      const line = (paymentId: string, kind: number): BookingLine => ({
        paymentId,
        product:
          kind === 2 ? 'other-bank-domestic-credit-transfer' : 'handelsbanken-domestic-credit-transfer',
        debtorAccountId: kind === 1 ? agda.accountId : tolvan.accountId,
        amount:
          kind === 3
            ? { currency: 'EUR', minor: 10_00 }
            : { currency: 'SEK', minor: kind === 1 ? 150_00 : 100_00 },
        creditorAccount: kind === 0 ? agda.bban! : kind === 1 ? tolvan.bban! : EXAMPLE_CREDITORS.sebBban,
        creditorName: kind === 2 ? "Another bank's customer" : null,
        withinBank: kind < 2,
        remittance: `invoice ${kind}`,
        reference: null,
        initiatedOn: '2026-01-02',
      });
      const today = bankDate();
      const outcomes = await Promise.all(
        paymentIds.map((paymentId, index) =>
          ledger.book({ key: `order-${paymentId}`, bookingDate: today, lines: [line(paymentId, index % 4)] }),
        ),
      );
      const refused = outcomes.filter(
        (outcome): outcome is Extract<BookingOutcome, { booked: false }> => !outcome.booked,
      );
      assert.ok(refused.length >= 1 && refused.length <= 9, `${refused.length} refused`);
      for (const outcome of refused)
        assert.deepEqual(outcome, {
          booked: false,
          reasonCode: 'AM04',
          reason: 'insufficient funds on the debtor account',
        });
      assert.deepEqual(await driftedBalances(gateway), []);
      // Each booked order's entries (two; four through the fx accounts) carry what its booking says.
      const entries = await queryRows<{ entries: string; copied: boolean }>(
        gateway.store,
        sql`SELECT count(*)::text AS entries,
                   bool_and(b.booked_on = e.booked_on AND b.transaction_date = e.transaction_date
                            AND b.debtor_name IS NOT DISTINCT FROM e.debtor_name
                            AND b.creditor_name IS NOT DISTINCT FROM e.creditor_name
                            AND b.remittance IS NOT DISTINCT FROM e.remittance) AS copied
              FROM ledger_entries e JOIN bookings b ON b.booking_id = e.booking_id
             WHERE b.payment_id IN ${paymentIds}`,
      );
      const fx = outcomes.filter((outcome, index) => index % 4 === 3 && outcome.booked).length;
      assert.deepEqual(entries, [
        { entries: String(2 * (paymentIds.length - refused.length) + 2 * fx), copied: true },
      ]);
      // Ids the bank has no account for (clearing:SEK) are left out.
      const kept = await bookedBalances(db, [tolvan.accountId, agda.accountId, 'clearing:SEK']);
      const openings = await queryRows<{ id: string; opening: string }>(
        gateway.store,
        sql`SELECT account_id AS id, balance_minor::text AS opening FROM accounts
             WHERE account_id IN (${tolvan.accountId}, ${agda.accountId})`,
      );
      const computed = new Map<string, number>();
      for (const { id, opening } of openings) computed.set(id, Number(opening) + (await entriesSum(db, id)));
      assert.deepEqual(kept, computed);
      assert.equal(kept.size, 2);
      assert.ok(kept.get(agda.accountId)! >= 0, 'never overdrawn');
      for (const [currency, total] of await entryTotals(db)) assert.equal(total, 0, `${currency} balances`);
      // Asked again, every order answers what it answered and books nothing more.
      const again = await Promise.all(
        paymentIds.map((paymentId, index) =>
          ledger.book({ key: `order-${paymentId}`, bookingDate: today, lines: [line(paymentId, index % 4)] }),
        ),
      );
      assert.deepEqual(again, outcomes);
      assert.deepEqual(await bookedBalances(db, [tolvan.accountId, agda.accountId]), kept);
    });

    test('a new opening balance, an account created after its entries, an entry or a booking changed', async () => {
      const db = gateway.store.db;
      await setBalance(gateway.store, tolvan.accountId, 1234_56);
      assert.deepEqual(await bookedBalances(db, [tolvan.accountId]), new Map([[tolvan.accountId, 1234_56]]));
      // The sandbox's history may be booked before its card accounts come back (POST /sandbox/reset).
      const [booking] = await queryRows<{ id: string }>(
        gateway.store,
        sql`SELECT booking_id AS id FROM bookings LIMIT 1`,
      );
      const added = await queryRows<{ id: string }>(
        gateway.store,
        sql`INSERT INTO ledger_entries (booking_id, ledger_account, currency, amount_minor)
            VALUES (${booking!.id}, 'card-later', 'SEK', -250), (${booking!.id}, 'clearing:SEK', 'SEK', 250)
            RETURNING entry_id::text AS id`,
      );
      await db.execute(
        sql`INSERT INTO card_accounts (card_account_id, psu_id, currency, product, owner_name, credit_limit_minor, balance_minor, position)
            SELECT 'card-later', psu_id, 'SEK', 'Kort', owner_name, 10000, -1000, 9 FROM accounts WHERE account_id = ${tolvan.accountId}`,
      );
      assert.deepEqual(await bookedBalances(db, ['card-later']), new Map([['card-later', -1250]]));
      // An entry written without what its booking says of it gets it copied (migrations 0020, 0021).
      const copied = await queryRows<Record<string, boolean>>(
        gateway.store,
        sql`SELECT b.booked_on::text = e.booked_on::text AS "bookedOn",
                   b.transaction_date::text = e.transaction_date::text AS "transactionDate",
                   b.debtor_name IS NOT DISTINCT FROM e.debtor_name AS "debtorName",
                   b.creditor_name IS NOT DISTINCT FROM e.creditor_name AS "creditorName",
                   b.remittance IS NOT DISTINCT FROM e.remittance AS remittance
              FROM ledger_entries e JOIN bookings b ON b.booking_id = e.booking_id
             WHERE e.entry_id = ${added[0]!.id}::bigint`,
      );
      assert.deepEqual(copied, [
        { bookedOn: true, transactionDate: true, debtorName: true, creditorName: true, remittance: true },
      ]);
      await db.execute(
        sql`DELETE FROM ledger_entries WHERE entry_id IN (${added[0]!.id}::bigint, ${added[1]!.id}::bigint)`,
      );
      assert.deepEqual(await bookedBalances(db, ['card-later']), new Map([['card-later', -1000]]));
      await assert.rejects(
        db.execute(
          sql`UPDATE ledger_entries SET amount_minor = amount_minor + 1 WHERE ledger_account = ${tolvan.accountId}`,
        ),
        (error: Error) =>
          /ledger entries are never changed/.test(
            `${error.message} ${(error.cause as Error | undefined)?.message}`,
          ),
      );
      // Nor is a booking: its entries hold copies of what it says.
      await assert.rejects(
        db.execute(sql`UPDATE bookings SET remittance = 'changed' WHERE booking_id = ${booking!.id}`),
        (error: Error) =>
          /bookings are never changed/.test(
            `${error.message} ${(error.cause as Error | undefined)?.message}`,
          ),
      );
      assert.deepEqual(await driftedBalances(gateway), []);
    });
  });
}
