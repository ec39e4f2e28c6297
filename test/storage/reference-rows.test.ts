// Reference rows (migration 0026): what the bank's own systems vouch for is kept as ids only, next to
// the built-in systems' customers, and the data rules hold for both: a payment belongs to its debtor
// account and that account's PSU. On PGlite and on PostgreSQL.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { seedTestCustomers } from '../../src/sandbox/seed.ts';
import {
  findAccountById,
  findPsu,
  listPsus,
  referenceAccount,
  referencePsu,
} from '../../src/store/customers-repository.ts';
import { backends, openTestStore, queryRows, type TestStore } from '../helpers/gateway.ts';
import { ACCOUNTS } from '../helpers/payments.ts';

const BANK_ONLY_PSU = '199004302384';
const MOVED_TO_PSU = '198508152393';

/** The database refused the statement by this constraint (the driver's error is the cause). */
const violates = (constraint: string) => (error: unknown) =>
  String((error as { cause?: Error }).cause?.message ?? error).includes(`"${constraint}"`);

for (const backend of backends()) {
  describe(`reference rows (${backend})`, () => {
    let store: TestStore;
    before(async () => {
      store = await openTestStore(backend);
      await seedTestCustomers(store.db, '2026-03-02');
    });
    after(() => store.close());

    const rows = (query: string) => queryRows(store, sql.raw(query));

    test('an account and its PSU as ids only, written once however often the bank vouches for them', async () => {
      await referenceAccount(store.db, 'core-0001', BANK_ONLY_PSU);
      await referenceAccount(store.db, 'core-0001', BANK_ONLY_PSU);
      await referencePsu(store.db, BANK_ONLY_PSU);
      assert.deepEqual(
        await rows(
          `SELECT psu_id, name, customer_type, reference FROM psus WHERE psu_id = '${BANK_ONLY_PSU}'`,
        ),
        [{ psu_id: BANK_ONLY_PSU, name: null, customer_type: null, reference: true }],
      );
      assert.deepEqual(
        await rows(`SELECT account_id, psu_id, iban, currency, reference FROM accounts WHERE reference`),
        [{ account_id: 'core-0001', psu_id: BANK_ONLY_PSU, iban: null, currency: null, reference: true }],
      );
    });

    test('the built-in systems never read a reference row, and their own rows stay as they are', async () => {
      assert.equal(await findPsu(store.db, BANK_ONLY_PSU), undefined);
      assert.equal(await findAccountById(store.db, 'core-0001'), undefined);
      assert.ok(
        !(await listPsus(store.db)).some((psu) => psu.psuId === BANK_ONLY_PSU),
        'the sandbox listing leaves reference rows out',
      );
      await referenceAccount(store.db, ACCOUNTS.tolvan.accountId, ACCOUNTS.tolvan.psuId);
      assert.deepEqual(await findPsu(store.db, ACCOUNTS.tolvan.psuId), {
        psuId: ACCOUNTS.tolvan.psuId,
        name: 'Tolvan Tolvansson',
        customerType: 'private',
        corporateId: null,
      });
      assert.equal((await findAccountById(store.db, ACCOUNTS.tolvan.accountId))?.iban, ACCOUNTS.tolvan.iban);
    });

    test('a reference row carries no customer data; a built-in row carries all of it', async () => {
      await assert.rejects(
        store.db.execute(sql`INSERT INTO psus (psu_id, name, reference) VALUES ('x-1', 'Named', true)`),
        violates('psus_reference_holds_ids_only'),
      );
      await assert.rejects(
        store.db.execute(
          sql`INSERT INTO accounts (account_id, psu_id, iban, reference)
              VALUES ('x-2', ${BANK_ONLY_PSU}, 'SE0860000000000456789014', true)`,
        ),
        violates('accounts_reference_holds_ids_only'),
      );
      await assert.rejects(
        store.db.execute(sql`INSERT INTO psus (psu_id) VALUES ('x-3')`),
        violates('psus_reference_holds_ids_only'),
      );
    });

    test('a payment still belongs to its debtor account and that account’s PSU', async () => {
      await store.db.execute(
        sql`INSERT INTO apps (client_id, name, redirect_uri) VALUES ('ref-app', 'Ref', 'https://tpp.example/cb')`,
      );
      const payment = (psuId: string) =>
        store.db.execute(sql`
          INSERT INTO payments (payment_id, client_id, product, country, customer_type, psu_id, debtor_account_id,
                                amount_minor, currency, debtor_currency, creditor_account, status, instruction)
          VALUES (${`p-${psuId}`}, 'ref-app', 'other-bank-domestic-credit-transfer', 'SE', 'private', ${psuId},
                  'core-0001', 100, 'SEK', 'SEK', '50001234501', 'ACTC', '{}'::jsonb)`);
      await assert.rejects(payment(ACCOUNTS.tolvan.psuId), violates('payments_debtor_account_of_psu'));
      await payment(BANK_ONLY_PSU);
    });

    test('an account the bank moved to another PSU follows it, unless the earlier PSU’s payments hold it', async () => {
      const owner = async (accountId: string) =>
        (await rows(`SELECT psu_id FROM accounts WHERE account_id = '${accountId}'`))[0]?.psu_id;
      // No payment from core-0002: its reference row follows the bank to the new owner.
      assert.equal(await referenceAccount(store.db, 'core-0002', BANK_ONLY_PSU), true);
      assert.equal(await referenceAccount(store.db, 'core-0002', MOVED_TO_PSU), true);
      assert.equal(await owner('core-0002'), MOVED_TO_PSU);
      assert.equal(await referenceAccount(store.db, 'core-0002', MOVED_TO_PSU), true);
      // core-0001 holds a payment of BANK_ONLY_PSU (the test before): its row stays, the move is refused.
      assert.equal(await referenceAccount(store.db, 'core-0001', MOVED_TO_PSU), false);
      assert.equal(await owner('core-0001'), BANK_ONLY_PSU);
      assert.equal(await referenceAccount(store.db, 'core-0001', BANK_ONLY_PSU), true);
      // A built-in system's row is never moved.
      assert.equal(await referenceAccount(store.db, ACCOUNTS.tolvan.accountId, MOVED_TO_PSU), false);
      assert.equal(await owner(ACCOUNTS.tolvan.accountId), ACCOUNTS.tolvan.psuId);
    });
  });
}
