// Storage on PGlite and PostgreSQL: migrations, the constraints that make wrong states impossible,
// and races: retried initiations and executions from two gateways sharing one database.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { SYSTEM_MOVER } from '../../src/domain/audit.ts';
import { addDays, dateIn } from '../../src/domain/dates.ts';
import { TransitionRefused } from '../../src/domain/payment.ts';
import { validatePaymentBody } from '../../src/domain/payment-rules.ts';
import { findProduct } from '../../src/domain/products.ts';
import { hashSecret } from '../../src/domain/secrets.ts';
import { openStore } from '../../src/store/database/open.ts';
import { runStatement } from '../../src/store/database.ts';
import { findKey } from '../../src/store/idempotency-repository.ts';
import { bookedBalance } from '../../src/store/ledger/balances.ts';
import { runMigrations } from '../../src/store/migrate.ts';
import { markOneBooking } from '../../src/store/payments/bookings.ts';
import { insertPaymentAnswering } from '../../src/store/payments/insert.ts';
import { moveBookedAnswering, moveStatus } from '../../src/store/payments/moves.ts';
import { findPayment } from '../../src/store/payments/reads.ts';
import {
  backends,
  type Gateway,
  type GatewayPair,
  queryRows,
  startGatewayPair,
  TEST_DATABASE_URL,
  type TestStore,
} from '../helpers/gateway.ts';
import { KEY_REUSED } from '../helpers/http.ts';
import { claimedKey } from '../helpers/key-claims.ts';
import { ACCOUNTS, domestic } from '../helpers/payments.ts';

const PATH = '/psd2/se/v2/payments/private/single/handelsbanken-domestic-credit-transfer';

async function migrationFiles(): Promise<string[]> {
  const files = await readdir(new URL('../../src/store/migrations/', import.meta.url));
  return files.filter((name) => name.endsWith('.sql')).sort();
}

for (const backend of backends()) {
  describe(`storage on ${backend}`, () => {
    let pair: GatewayPair;
    let store: TestStore;
    let first: Gateway;
    let second: Gateway;
    before(async () => {
      pair = await startGatewayPair(backend);
      ({ store, first, second } = pair);
    });
    after(() => pair.close());

    test('migrations run once', async () => {
      assert.deepEqual(await runMigrations(store), []);
      const rows = await queryRows<{ name: string }>(
        store,
        sql`SELECT name FROM schema_migrations ORDER BY name`,
      );
      assert.deepEqual(
        rows.map((row) => row.name),
        await migrationFiles(),
      );
    });

    test('constraints refuse wrong states', async () => {
      const base = sql`INSERT INTO payments (payment_id, client_id, product, country, customer_type, psu_id, debtor_account_id, debtor_currency, amount_minor, currency, creditor_account, status, instruction, executed_at)`;
      const values = (amount: number, status: string, executed: boolean, psuId = ACCOUNTS.tolvan.psuId) =>
        sql`${base} VALUES (${randomUUID()}, ${first.sandboxApp.clientId}, 'handelsbanken-domestic-credit-transfer', 'SE', 'private', ${psuId}, ${ACCOUNTS.tolvan.accountId}, 'SEK', ${amount}, 'SEK', '6789555555550', ${status}, '{}', ${executed ? sql`now()` : sql`NULL`})`;
      await store.db.execute(values(100, 'ACTC', false));
      for (const [query, what] of [
        [values(0, 'ACTC', false), 'a zero amount'],
        [values(100, 'DONE', true), 'an unknown status'],
        [values(100, 'ACSC', false), 'an executed status without execution time'],
        [values(100, 'ACTC', true), 'ACTC with an execution time'],
        [
          sql`INSERT INTO access_tokens (token_hash, kind, client_id, scope) VALUES (${'a'.repeat(64)}, 'authorization_code', ${first.sandboxApp.clientId}, 'PIS:x')`,
          'a PSU token without PSU',
        ],
        [
          sql`INSERT INTO access_tokens (token_hash, kind, client_id, scope) VALUES ('plain-secret', 'client_credentials', ${first.sandboxApp.clientId}, 'PIS')`,
          'a token stored unhashed',
        ],
        [
          sql`INSERT INTO psus (psu_id, name, customer_type) VALUES ('x', 'X AB', 'corporate')`,
          'a corporate without organisation number',
        ],
      ] as const) {
        await assert.rejects(store.db.execute(query), Error, what);
      }
      // One foreign key on (debtor account, PSU) stands for the PSU's and the account's (migration 0023).
      for (const [psuId, what] of [
        [ACCOUNTS.agda.psuId, 'a PSU that does not hold the debtor account'],
        ['no-such-psu', 'an unknown PSU'],
      ] as const) {
        await assert.rejects(store.db.execute(values(100, 'ACTC', false, psuId)), (error: Error) => {
          const text = `${error.message} ${(error.cause as Error | undefined)?.message ?? ''}`;
          assert.match(text, /payments_debtor_account_of_psu/, what);
          return true;
        });
      }
    });

    test("an initiation's row: every column as the instruction says, the instruction as validated", async () => {
      const token = await first.client.clientCredentialsToken();
      const date = addDays(dateIn(new Date(), 'Europe/Stockholm'), 3);
      const body = domestic({ requestedExecutionDate: date, creditor: { name: 'Agda Andersson' } });
      const product = 'handelsbanken-domestic-credit-transfer';
      const path = `/psd2/se/v2/payments/private/single/${product}`;
      const initiated = await first.client.initiate(token, { path, body });
      assert.equal(initiated.status, 200, JSON.stringify(initiated.body));
      const validated = validatePaymentBody(findProduct(product)!, body, {
        country: 'SE',
        today: dateIn(new Date(), 'Europe/Stockholm'),
      });
      assert.ok(validated.ok, 'the body validates');
      const rows = await queryRows(
        store,
        sql`SELECT client_id, product, country, customer_type, psu_id, corporate_id, debtor_account_id,
                   amount_minor::text AS amount_minor, currency, creditor_name, creditor_account,
                   requested_execution_date::text AS requested_execution_date, status, instruction,
                   debtor_currency, basket_id, tpp_payment_reference
              FROM payments WHERE payment_id = ${initiated.body.paymentId}`,
      );
      assert.deepEqual(rows, [
        {
          client_id: first.sandboxApp.clientId,
          product,
          country: 'SE',
          customer_type: 'private',
          psu_id: ACCOUNTS.tolvan.psuId,
          corporate_id: null,
          debtor_account_id: ACCOUNTS.tolvan.accountId,
          amount_minor: '12550',
          currency: 'SEK',
          creditor_name: 'Agda Andersson',
          creditor_account: validated.value.creditor.account,
          requested_execution_date: date,
          status: 'ACTC',
          instruction: JSON.parse(JSON.stringify(validated.value)),
          debtor_currency: 'SEK',
          basket_id: null,
          tpp_payment_reference: null,
        },
      ]);
    });

    test('the store refuses a move the transition table does not have, and a move from a status left', async () => {
      const token = await first.client.clientCredentialsToken();
      const initiated = await first.client.initiate(token, { path: PATH, body: domestic() });
      const paymentId = initiated.body.paymentId;
      const at = new Date();
      for (const [from, to] of [
        ['ACTC', 'ACTC'],
        ['ACCC', 'ACTC'],
        ['RJCT', 'ACCC'],
        ['CANC', 'ACTC'],
        ['ACSC', 'RJCT'],
      ] as const) {
        await assert.rejects(
          store.db.transaction((trx) => moveStatus(trx, paymentId, from, to, at, SYSTEM_MOVER)),
          new TransitionRefused(paymentId, from, to),
        );
      }
      await assert.rejects(
        store.db.transaction((trx) => moveStatus(trx, paymentId, 'ACTC', 'RJCT', at, SYSTEM_MOVER)),
        new Error('a rejection, and only it, has a reason'),
      );
      assert.equal((await findPayment(store.db, paymentId))!.status, 'ACTC');
      // A move the table has, from a status the payment is no longer in: nothing happens.
      assert.equal(
        await store.db.transaction((trx) => moveStatus(trx, paymentId, 'ACCP', 'CANC', at, SYSTEM_MOVER)),
        false,
      );
      assert.equal(
        await store.db.transaction((trx) => moveStatus(trx, paymentId, 'ACTC', 'CANC', at, SYSTEM_MOVER)),
        true,
      );
      assert.equal((await findPayment(store.db, paymentId))!.status, 'CANC');
      await assert.rejects(
        store.db.transaction((trx) => moveStatus(trx, paymentId, 'CANC', 'ACCC', at, SYSTEM_MOVER)),
        new TransitionRefused(paymentId, 'CANC', 'ACCC'),
      );
    });

    test('one Idempotency-Key sent 20 times at once, to two gateways: one payment', async () => {
      const token = await first.client.clientCredentialsToken();
      const headers = { 'Idempotency-Key': `"${randomUUID()}"` };
      const before = (await queryRows<{ n: number }>(store, sql`SELECT count(*)::int AS n FROM payments`))[0]!
        .n;
      const answers = await Promise.all(
        Array.from({ length: 20 }, (_, index) =>
          (index % 2 === 0 ? first : second).client.request<{ paymentId: string }>('POST', PATH, {
            headers: { ...first.client.tppHeaders(token), ...headers },
            json: domestic(),
          }),
        ),
      );
      // Each is answered the first answer, or 409 while the first is in flight.
      const done = answers.filter((answer) => answer.status === 200);
      assert.ok(done.length > 0, 'one of them is answered');
      assert.deepEqual(
        answers.filter((answer) => answer.status !== 200).map((answer) => answer.status),
        Array.from({ length: 20 - done.length }, () => 409),
      );
      assert.equal(new Set(done.map((answer) => answer.body.paymentId)).size, 1);
      const after = (await queryRows<{ n: number }>(store, sql`SELECT count(*)::int AS n FROM payments`))[0]!
        .n;
      assert.equal(after - before, 1);
    });

    test('120 initiations on two gateways, some repeated under their keys: each stored once, as it was sent', async () => {
      // Concurrent initiations share statements (store/coalescer.ts): no row may take another's values.
      const token = await first.client.clientCredentialsToken();
      const requests = Array.from({ length: 100 }, (_, index) => ({
        key: randomUUID(),
        body: domestic({
          instructedAmount: { currency: 'SEK', amount: `${index + 1}.25` },
          remittanceInformationUnstructured: `Batch ${index}`,
        }),
      }));
      // Once all are answered, every tenth request again with the same body, and request 5 with another body.
      const repeated = requests.map((_, index) => index).filter((index) => index % 10 === 0);
      const send = (sent: readonly { key: string; body: unknown }[]) =>
        Promise.all(
          sent.map(({ key, body }, index) =>
            (index % 2 === 0 ? first : second).client.request<{ paymentId: string }>('POST', PATH, {
              headers: { ...first.client.tppHeaders(token), 'Idempotency-Key': `"${key}"` },
              json: body,
            }),
          ),
        );
      const answers = [
        ...(await send(requests)),
        ...(await send([
          ...repeated.map((index) => requests[index]!),
          { key: requests[5]!.key, body: domestic() },
        ])),
      ];
      const conflicting = answers.pop()!;
      assert.deepEqual([conflicting.status, conflicting.body], [422, KEY_REUSED]);
      assert.deepEqual(new Set(answers.map((answer) => answer.status)), new Set([200]));
      const ids = answers.map((answer) => answer.body.paymentId);
      for (const [position, index] of repeated.entries()) assert.equal(ids[100 + position], ids[index]);
      const rows = await queryRows<{ id: string; amount: string; remittance: string }>(
        store,
        sql`SELECT payment_id AS id, amount_minor::text AS amount, instruction->>'remittance' AS remittance
              FROM payments WHERE payment_id IN (${sql.join(ids.slice(0, 100), sql`, `)})`,
      );
      const stored = new Map(rows.map((row) => [row.id, row]));
      assert.equal(stored.size, 100);
      for (const index of requests.keys()) {
        assert.deepEqual(stored.get(ids[index]!), {
          id: ids[index],
          amount: `${(index + 1) * 100 + 25}`,
          remittance: `Batch ${index}`,
        });
      }
    });

    test('100 payments stored at once share statements; each row and answer is its own', async () => {
      const product = findProduct('handelsbanken-domestic-credit-transfer')!;
      const clientId = first.sandboxApp.clientId;
      // Payments 0-79 under claims of their own, 80-89 without a key, 90-99 under claims lost (another token).
      const claims = await Promise.all(Array.from({ length: 100 }, () => claimedKey(store.db, clientId)));
      const items = Array.from({ length: 100 }, (_, index) => {
        const validated = validatePaymentBody(
          product,
          domestic({
            instructedAmount: { currency: 'SEK', amount: `${index + 1}.75` },
            remittanceInformationUnstructured: `Row ${index}`,
          }),
          { country: 'SE', today: '2026-01-01' },
        );
        assert.ok(validated.ok, 'the payment validates');
        const payment = {
          id: randomUUID(),
          clientId,
          customerType: 'private' as const,
          psuId: ACCOUNTS.tolvan.psuId,
          corporateId: null,
          debtorAccountId: ACCOUNTS.tolvan.accountId,
          debtorCurrency: 'SEK',
          instruction: validated.value,
        };
        const claim =
          index < 80 ? claims[index]! : index < 90 ? undefined : { ...claims[index]!, token: 'lost' };
        return { payment, claim, answer: { statusCode: 200, body: { paymentId: payment.id, index } } };
      });
      // All submitted in one tick: two statements start, the others wait and go together.
      const stored = await Promise.all(
        items.map(({ payment, claim, answer }) =>
          insertPaymentAnswering(store.db, payment, claim === undefined ? undefined : { claim, ...answer }),
        ),
      );
      assert.deepEqual(
        stored,
        items.map((_, index) => index < 90),
      );
      const winners = items.filter((_, index) => stored[index]);
      const rows = await queryRows<{ id: string; amount: string; remittance: string }>(
        store,
        sql`SELECT payment_id AS id, amount_minor::text AS amount, instruction->>'remittance' AS remittance
              FROM payments WHERE payment_id IN (${sql.join(
                items.map(({ payment }) => payment.id),
                sql`, `,
              )})`,
      );
      assert.deepEqual(
        new Map(rows.map((row) => [row.id, row])),
        new Map(
          winners.map(({ payment, answer }) => [
            payment.id,
            {
              id: payment.id,
              amount: `${(answer.body.index + 1) * 100 + 75}`,
              remittance: `Row ${answer.body.index}`,
            },
          ]),
        ),
      );
      // Rows of one statement share its transaction id: 90 rows came in a handful of statements.
      const [counted] = await queryRows<{ statements: number }>(
        store,
        sql`SELECT count(DISTINCT xmin::text)::int AS statements FROM payments
             WHERE payment_id IN (${sql.join(
               items.map(({ payment }) => payment.id),
               sql`, `,
             )})`,
      );
      assert.ok(counted!.statements <= 5, `${counted!.statements} statements`);
      // Each key answers what its stored payment's request answered; a lost claim's key is still in flight.
      for (const [index, item] of items.entries()) {
        if (index >= 80 && index < 90) continue;
        const print = `print ${claims[index]!.key}`;
        assert.deepEqual(
          await findKey(store.db, claims[index]!),
          index < 80
            ? { fingerprint: print, inFlight: false, statusCode: 200, body: item.answer.body }
            : { fingerprint: print, inFlight: true },
        );
      }
    });

    test('marks and finishes of concurrent executions share statements; each outcome is its own', async () => {
      const token = await first.client.clientCredentialsToken();
      const ids: string[] = [];
      for (let index = 0; index < 3; index += 1)
        ids.push((await first.client.initiate(token, { path: PATH, body: domestic() })).body.paymentId);
      const [a, b, c] = ids as [string, string, string];
      const at = new Date('2026-01-02T10:00:00.000Z');
      // One turn: a, b and c marked in one statement; a's second mark goes in another (the same payment
      // never twice in one), and whichever runs first, both answer that one mark.
      const marks = await Promise.all([
        markOneBooking(store.db, a, 'key-a', at, 'ACTC'),
        markOneBooking(store.db, b, 'key-b', at, 'ACTC'),
        markOneBooking(store.db, c, 'key-c', at, 'ACTC'),
        markOneBooking(store.db, a, 'key-a2', at, 'ACTC'),
        markOneBooking(store.db, b, 'key-b2', at, 'ACCP'),
      ]);
      const mark = (key: string) => ({ key, startedAt: at });
      const aKey = marks[0]!.key;
      assert.ok(['key-a', 'key-a2'].includes(aKey), aKey);
      assert.deepEqual(marks, [mark(aKey), mark('key-b'), mark('key-c'), mark(aKey), undefined]);
      const clientId = first.sandboxApp.clientId;
      const [aClaim, cClaim] = [
        await claimedKey(store.db, clientId, 'execute'),
        await claimedKey(store.db, clientId, 'execute'),
      ];
      // Each execution's own caller, named in the audit record of its move although they share a statement.
      const move = (paymentId: string, bookingKey: string) => ({
        paymentId,
        bookingKey,
        from: 'ACTC' as const,
        to: 'ACCC' as const,
        at,
        mover: { by: 'tpp', actor: { address: '192.0.2.1', correlationId: `execute-${paymentId}` } } as const,
      });
      // a answered under its key's claim, b without a key: both move; c's order is not the one it waits
      // for: it stays, and its answer is not recorded.
      const finished = await Promise.all([
        moveBookedAnswering(store.db, move(a, aKey), {
          claim: aClaim,
          statusCode: 200,
          body: { paymentId: a },
        }),
        moveBookedAnswering(store.db, move(b, 'key-b'), undefined),
        moveBookedAnswering(store.db, move(c, 'key-other'), {
          claim: cClaim,
          statusCode: 200,
          body: { paymentId: c },
        }),
      ]);
      assert.deepEqual(finished, [
        { moved: true, answered: true },
        { moved: true, answered: true },
        { moved: false, answered: false },
      ]);
      assert.deepEqual(await findKey(store.db, aClaim), {
        fingerprint: `print ${aClaim.key}`,
        inFlight: false,
        statusCode: 200,
        body: { paymentId: a },
      });
      assert.deepEqual(await findKey(store.db, cClaim), {
        fingerprint: `print ${cClaim.key}`,
        inFlight: true,
      });
      const rows = await queryRows<{ id: string; status: string; key: string | null; statements: number }>(
        store,
        sql`SELECT payment_id AS id, status, booking_key AS key, count(*) OVER (PARTITION BY xmin::text)::int AS statements
              FROM payments WHERE payment_id IN (${a}, ${b}, ${c}) ORDER BY payment_id`,
      );
      assert.deepEqual(
        rows.map(({ id, status, key }) => ({ id, status, key })),
        [
          { id: a, status: 'ACCC', key: null },
          { id: b, status: 'ACCC', key: null },
          { id: c, status: 'ACTC', key: 'key-c' },
        ].sort((x, y) => (x.id < y.id ? -1 : 1)),
      );
      // a and b were finished by one statement (one transaction id).
      assert.equal(rows.find((row) => row.id === a)!.statements, 2);
      const recorded = await queryRows<{ resource: string; correlationId: string; actor: unknown }>(
        store,
        sql`SELECT e.resource, e.correlation_id AS "correlationId", p.audit_actor AS actor
              FROM audit_events e JOIN payments p ON p.payment_id = e.resource
             WHERE e.resource IN (${a}, ${b}, ${c}) AND e.event = 'payment.booked' ORDER BY e.resource`,
      );
      assert.deepEqual(
        recorded,
        [a, b].sort().map((id) => ({ resource: id, correlationId: `execute-${id}`, actor: null })),
      );
    });

    test('one payment executed 20 times at once, on two gateways: one execution, one status', async () => {
      const client = first.client;
      const token = await client.clientCredentialsToken();
      const initiated = await client.initiate(token, { path: PATH, body: domestic() });
      const paymentId = initiated.body.paymentId;
      const scope = `PIS:${paymentId}`;
      const code = (await client.authorize(scope, 's')).get('code')!;
      const psuToken = (await client.exchangeCode(scope, code)).body.access_token;
      const answers = await Promise.all(
        Array.from({ length: 20 }, (_, index) =>
          (index % 2 === 0 ? first : second).client.execute(
            'handelsbanken-domestic-credit-transfer',
            paymentId,
            psuToken,
          ),
        ),
      );
      for (const answer of answers)
        assert.deepEqual([answer.status, answer.body], [200, { paymentId, transactionStatus: 'ACCC' }]);
      const rows = await queryRows<{ status: string; executed: boolean }>(
        store,
        sql`SELECT status, executed_at IS NOT NULL AS executed FROM payments WHERE payment_id = ${paymentId}`,
      );
      assert.deepEqual(rows, [{ status: 'ACCC', executed: true }]);
    });

    /** A payment initiated on the first gateway and authorized by its PSU: its id and the PSU's token. */
    async function authorizedPayment() {
      const client = first.client;
      const initiated = await client.initiate(await client.clientCredentialsToken(), {
        path: PATH,
        body: domestic(),
      });
      assert.equal(initiated.status, 200, JSON.stringify(initiated.body));
      const paymentId = initiated.body.paymentId;
      return { paymentId, psuToken: (await client.authorizeScope(`PIS:${paymentId}`)).access_token };
    }

    function execute(paymentId: string, psuToken: string, key: string) {
      return first.client.request(
        'PUT',
        `/psd2/v1/payments/handelsbanken-domestic-credit-transfer/${paymentId}`,
        {
          headers: { ...first.client.tppHeaders(psuToken), 'Idempotency-Key': `"${key}"` },
        },
      );
    }

    /** The transaction ids of every row an execution wrote, and what the payment and its order say. */
    async function executionRows(paymentId: string, key: string) {
      return queryRows<{ row: string; tx: string; status: string | null; key: string | null }>(
        store,
        sql`SELECT 'payment' AS row, xmin::text AS tx, status, booking_key AS key FROM payments WHERE payment_id = ${paymentId}
            UNION ALL
            SELECT 'booking', xmin::text, NULL, NULL FROM bookings WHERE payment_id = ${paymentId}
            UNION ALL
            SELECT 'entry', e.xmin::text, NULL, NULL FROM ledger_entries e JOIN bookings b USING (booking_id)
             WHERE b.payment_id = ${paymentId}
            UNION ALL
            SELECT 'order', xmin::text, NULL, order_key FROM ledger_orders
             WHERE order_key IN (${paymentId}, ${`earlier-${paymentId}`})
            UNION ALL
            SELECT 'answer', xmin::text, NULL, NULL FROM idempotency_claims
             WHERE client_id = ${first.sandboxApp.clientId} AND operation = 'execute' AND idempotency_key = ${key}`,
      );
    }

    /** The rows of a payment booked ACCC under the order `orderKey`, unmarked, and its answer. */
    const rowsOfExecution = (orderKey: string) => [
      { row: 'payment', status: 'ACCC', key: null },
      { row: 'booking', status: null, key: null },
      { row: 'entry', status: null, key: null },
      { row: 'entry', status: null, key: null },
      { row: 'order', status: null, key: orderKey },
      { row: 'answer', status: null, key: null },
    ];

    test('an execution through the built-in ledger commits the booking, the move and the answer together', async () => {
      const { paymentId, psuToken } = await authorizedPayment();
      const requestId = randomUUID();
      const executed = await execute(paymentId, psuToken, requestId);
      const body = { paymentId, transactionStatus: 'ACCC' };
      assert.deepEqual([executed.status, executed.body], [200, body]);
      const rows = await executionRows(paymentId, requestId);
      assert.deepEqual(
        rows.map(({ row, status, key }) => ({ row, status, key })),
        rowsOfExecution(paymentId),
      );
      // One transaction wrote every row: no mark was committed on its own, no answer after.
      assert.equal(new Set(rows.map((row) => row.tx)).size, 1, JSON.stringify(rows));
      const again = await execute(paymentId, psuToken, requestId);
      assert.deepEqual([again.status, again.body], [200, body]);
    });

    test('a payment marked for a booking asked before is executed by that booking', async () => {
      const { paymentId, psuToken } = await authorizedPayment();
      // As a process that died after step 1 of booking.ts leaves it.
      const mark = await markOneBooking(store.db, paymentId, `earlier-${paymentId}`, new Date(), 'ACTC');
      assert.equal(mark?.key, `earlier-${paymentId}`, JSON.stringify(mark));
      const requestId = randomUUID();
      const executed = await execute(paymentId, psuToken, requestId);
      assert.deepEqual([executed.status, executed.body], [200, { paymentId, transactionStatus: 'ACCC' }]);
      const rows = await executionRows(paymentId, requestId);
      assert.deepEqual(
        rows.map(({ row, status, key }) => ({ row, status, key })),
        rowsOfExecution(`earlier-${paymentId}`),
      );
    });

    test('a status read on one gateway follows an execution on the other', async () => {
      // Only final statuses are kept in memory: the second gateway must not hold on to ACTC.
      const token = await first.client.clientCredentialsToken();
      const paymentId = (await first.client.initiate(token, { path: PATH, body: domestic() })).body.paymentId;
      const product = 'handelsbanken-domestic-credit-transfer';
      const statusOnSecond = async () => {
        const answer = await second.client.status(product, paymentId, token, 'SE');
        return { status: answer.status, body: answer.body };
      };
      assert.deepEqual(await statusOnSecond(), {
        status: 200,
        body: { paymentId, transactionStatus: 'ACTC' },
      });
      await first.client.authorizeAndExecute(product, paymentId);
      assert.deepEqual(await statusOnSecond(), {
        status: 200,
        body: { paymentId, transactionStatus: 'ACCC' },
      });
      assert.deepEqual(await statusOnSecond(), {
        status: 200,
        body: { paymentId, transactionStatus: 'ACCC' },
      });
    });

    test('a code exchanged 10 times at once: one token, the rest refused', async () => {
      const client = first.client;
      const token = await client.clientCredentialsToken();
      const initiated = await client.initiate(token, { path: PATH, body: domestic() });
      const scope = `PIS:${initiated.body.paymentId}`;
      const code = (await client.authorize(scope, 's')).get('code')!;
      const answers = await Promise.all(
        Array.from({ length: 10 }, (_, index) =>
          (index % 2 === 0 ? first : second).client.exchangeCode(scope, code),
        ),
      );
      assert.equal(answers.filter((answer) => answer.status === 200).length, 1);
      for (const answer of answers.filter((answer) => answer.status !== 200)) {
        assert.deepEqual(
          [answer.status, answer.body],
          [400, { error: 'invalid_grant', error_description: 'the code has already been used' }],
        );
      }
    });

    test("12 codes exchanged at once share statements; each token is its own code's scope and PSU", async () => {
      const client = first.client;
      const token = await client.clientCredentialsToken();
      const scopes: string[] = [];
      for (let index = 0; index < 12; index++) {
        const initiated = await client.initiate(token, { path: PATH, body: domestic() });
        scopes.push(`PIS:${initiated.body.paymentId}`);
      }
      const codes = await Promise.all(
        scopes.map(async (scope) => (await client.authorize(scope, 's')).get('code')!),
      );
      const answers = await Promise.all(
        scopes.map((scope, index) => client.exchangeCode(scope, codes[index]!)),
      );
      assert.deepEqual(
        answers.map((answer) => answer.status),
        scopes.map(() => 200),
      );
      const rows = await queryRows<{ codeHash: string; scope: string; psuId: string; xmin: string }>(
        store,
        sql`SELECT code_hash AS "codeHash", scope, psu_id AS "psuId", xmin::text AS xmin FROM access_tokens
             WHERE token_hash IN (${sql.join(
               answers.map((answer) => sql`${hashSecret(answer.body.access_token)}`),
               sql`, `,
             )})`,
      );
      assert.deepEqual(
        rows.map(({ xmin: _xmin, ...row }) => row).sort((a, b) => a.scope.localeCompare(b.scope)),
        scopes
          .map((scope, index) => ({
            codeHash: hashSecret(codes[index]!),
            scope,
            psuId: ACCOUNTS.tolvan.psuId,
          }))
          .sort((a, b) => a.scope.localeCompare(b.scope)),
      );
      const statements = new Set(rows.map((row) => row.xmin)).size;
      assert.ok(statements < 12, `${statements} statements for 12 exchanges`);
    });

    /** Executes these authorized payments at once, each under a key of its own. */
    function executeAtOnce(payments: readonly { paymentId: string; psuToken: string }[]) {
      return Promise.all(
        payments.map(({ paymentId, psuToken }) => execute(paymentId, psuToken, randomUUID())),
      );
    }

    /** Each payment's bookings: the transaction that wrote it, and its entries' sum and count. */
    function bookingsOf(paymentIds: readonly string[]) {
      return queryRows<{ paymentId: string; xmin: string; entries: number; sum: string }>(
        store,
        sql`SELECT b.payment_id AS "paymentId", b.xmin::text AS xmin, count(e.*)::int AS entries,
                   sum(e.amount_minor)::text AS sum
              FROM bookings b JOIN ledger_entries e USING (booking_id)
             WHERE b.payment_id IN (${sql.join(
               paymentIds.map((id) => sql`${id}`),
               sql`, `,
             )})
             GROUP BY b.payment_id, b.xmin ORDER BY b.payment_id`,
      );
    }

    test('12 executions at once share statements; each is booked once and moves the balances once', async () => {
      const payments = [];
      for (let index = 0; index < 12; index++) payments.push(await authorizedPayment());
      const debtorBefore = await bookedBalance(store.db, ACCOUNTS.tolvan.accountId);
      const creditorBefore = await bookedBalance(store.db, ACCOUNTS.agda.accountId);
      const answers = await executeAtOnce(payments);
      assert.deepEqual(
        answers.map((answer) => [answer.status, answer.body]),
        payments.map(({ paymentId }) => [200, { paymentId, transactionStatus: 'ACCC' }]),
      );
      const booked = await bookingsOf(payments.map((payment) => payment.paymentId));
      assert.deepEqual(
        booked.map(({ xmin: _xmin, ...row }) => row),
        payments
          .map(({ paymentId }) => ({ paymentId, entries: 2, sum: '0' }))
          .sort((a, b) => a.paymentId.localeCompare(b.paymentId)),
      );
      // 12 payments of 125.50 SEK from Tolvan to Agda, each once.
      assert.deepEqual(
        [
          await bookedBalance(store.db, ACCOUNTS.tolvan.accountId),
          await bookedBalance(store.db, ACCOUNTS.agda.accountId),
        ],
        [debtorBefore! - 12 * 12_550, creditorBefore! + 12 * 12_550],
      );
      const statements = new Set(booked.map((row) => row.xmin)).size;
      assert.ok(statements < 12, `${statements} statements for 12 executions`);
    });

    test('an execution that fails among others executed at once fails alone, and nothing of it is kept', async () => {
      const payments = [];
      for (let index = 0; index < 6; index++) payments.push(await authorizedPayment());
      // A booking already there (written behind the gateway's back): ledger_book refuses to book the
      // payment again and raises, which fails the statement it shares.
      const poisoned = payments[2]!.paymentId;
      await queryRows(
        store,
        sql`INSERT INTO bookings (booking_id, payment_id, booked_on, transaction_date, created_at)
            VALUES (${randomUUID()}, ${poisoned}, current_date, current_date, now())`,
      );
      const answers = await executeAtOnce(payments);
      assert.deepEqual(
        answers.map((answer) =>
          answer.status === 500
            ? [500, (answer.body as { tppMessages: { code: string }[] }).tppMessages[0]!.code]
            : [answer.status, answer.body],
        ),
        payments.map(({ paymentId }) =>
          paymentId === poisoned ? [500, 'INTERNAL_ERROR'] : [200, { paymentId, transactionStatus: 'ACCC' }],
        ),
      );
      const rows = await queryRows<{ id: string; status: string; entries: number }>(
        store,
        sql`SELECT p.payment_id AS id, p.status,
                   (SELECT count(*) FROM ledger_entries e JOIN bookings b USING (booking_id)
                     WHERE b.payment_id = p.payment_id)::int AS entries
              FROM payments p WHERE p.payment_id IN (${sql.join(
                payments.map(({ paymentId }) => sql`${paymentId}`),
                sql`, `,
              )}) ORDER BY p.payment_id`,
      );
      assert.deepEqual(
        rows,
        payments
          .map(({ paymentId }) =>
            paymentId === poisoned
              ? { id: paymentId, status: 'ACTC', entries: 0 }
              : { id: paymentId, status: 'ACCC', entries: 2 },
          )
          .sort((a, b) => a.id.localeCompare(b.id)),
      );
    });
  });
}

if (TEST_DATABASE_URL !== undefined) {
  test('PostgreSQL: processes starting together migrate once', async () => {
    const schemaName = `t_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
    const stores = await Promise.all(
      [1, 2, 3].map(() => openStore({ databaseUrl: TEST_DATABASE_URL, schemaName })),
    );
    try {
      const rows = await queryRows<{ n: number }>(
        stores[0]!,
        sql`SELECT count(*)::int AS n FROM schema_migrations`,
      );
      assert.equal(rows[0]!.n, (await migrationFiles()).length);
    } finally {
      await stores[0]!.db.execute(sql.raw(`DROP SCHEMA ${schemaName} CASCADE`));
      await Promise.all(stores.map((store) => store.close()));
    }
  });

  test("PostgreSQL: settings in DATABASE_URL's options join the store's own, which win", async () => {
    const schemaName = `t_${randomUUID().replaceAll('-', '').slice(0, 12)}`;
    const url = new URL(TEST_DATABASE_URL!);
    url.searchParams.set('options', '-c work_mem=5MB -c statement_timeout=0');
    const store = await openStore({
      databaseUrl: url.toString(),
      schemaName,
      timeouts: { connectMs: 5_000, statementMs: 4_321 },
    });
    const settings = `SELECT current_setting('work_mem') AS "workMem",
                             current_setting('statement_timeout') AS "statementTimeout",
                             current_schema() AS "schema", current_setting('plan_cache_mode') AS "planCacheMode"`;
    try {
      // Drizzle's pool and the named statements' pool (planned once per connection).
      assert.deepEqual(await queryRows(store, sql.raw(settings)), [
        { workMem: '5MB', statementTimeout: '4321ms', schema: schemaName, planCacheMode: 'auto' },
      ]);
      assert.deepEqual(await runStatement(store.db, 'test_settings', settings, []), [
        {
          workMem: '5MB',
          statementTimeout: '4321ms',
          schema: schemaName,
          planCacheMode: 'force_generic_plan',
        },
      ]);
    } finally {
      await store.db.execute(sql.raw(`DROP SCHEMA ${schemaName} CASCADE`));
      await store.close();
    }
  });
}
