// Ledger invariants as properties: for any opening balance and any sequence of payments, the live
// ledger never drives the account below zero, accepts exactly what fits in order, and keeps every
// currency's entries summing to zero.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sql } from 'drizzle-orm';
import fc from 'fast-check';
import { ledgerCoreBanking } from '../../src/adapters/ledger-core-banking.ts';
import { sandboxRates } from '../../src/adapters/sandbox-rates.ts';
import { SYSTEM_MOVER } from '../../src/domain/audit.ts';
import { completeBooking, startBooking } from '../../src/services/payments/booking.ts';
import { entriesSum, entryTotals } from '../../src/store/ledger/balances.ts';
import { lockPayment } from '../../src/store/payments/locks.ts';
import { findPayment } from '../../src/store/payments/reads.ts';
import { type Gateway, serviceContext, startGateway } from '../helpers/gateway.ts';
import { ACCOUNTS, domestic } from '../helpers/payments.ts';

const agda = ACCOUNTS.agda;
let gateway: Gateway;
let token: string;
before(async () => {
  gateway = await startGateway();
  token = await gateway.client.clientCredentialsToken();
});
after(() => gateway.close());

test('property: never below zero, exactly the payments that fit, entries balanced', async () => {
  const db = gateway.store.db;
  const clock = () => new Date();
  const ledger = ledgerCoreBanking({ db, enforceFunds: true, rates: sandboxRates, clock });
  const context = serviceContext(gateway, { coreBanking: ledger });
  await fc.assert(
    fc.asyncProperty(
      fc.integer({ min: 0, max: 50_000 }),
      fc.array(fc.integer({ min: 1, max: 20_000 }), { minLength: 1, maxLength: 6 }),
      async (opening, amounts) => {
        // Give the account exactly `opening` available, whatever earlier runs booked.
        const booked = await entriesSum(db, agda.accountId);
        await db.execute(
          sql`UPDATE accounts SET balance_minor = ${opening - booked} WHERE account_id = ${agda.accountId}`,
        );
        let remaining = opening;
        for (const minor of amounts) {
          const amount = `${Math.floor(minor / 100)}.${String(minor % 100).padStart(2, '0')}`;
          const body = domestic({
            debtorAccount: { value: agda.bban!, accountType: 'BBAN' },
            creditorAccount: { value: ACCOUNTS.tolvan.bban!, accountType: 'BBAN' },
            instructedAmount: { currency: 'SEK', amount },
          });
          const initiated = await gateway.client.initiate(token, {
            path: '/psd2/se/v2/payments/private/single/handelsbanken-domestic-credit-transfer',
            body,
          });
          const paymentId = initiated.body.paymentId;
          const order = await db.transaction(async (trx) =>
            startBooking(context, [(await lockPayment(trx, paymentId))!], paymentId, SYSTEM_MOVER, trx),
          );
          await completeBooking(context, order!);
          const outcome = (await findPayment(db, paymentId))!.status;
          const fits = minor <= remaining;
          assert.equal(outcome, fits ? 'ACCC' : 'RJCT', `${minor} against ${remaining}`);
          if (fits) remaining -= minor;
          assert.equal(opening - booked + (await entriesSum(db, agda.accountId)), remaining);
          assert.ok(remaining >= 0, `${remaining} left`);
        }
        for (const [currency, total] of await entryTotals(db)) assert.equal(total, 0, currency);
      },
    ),
    { numRuns: 25 },
  );
});
