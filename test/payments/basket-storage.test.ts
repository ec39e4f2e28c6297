// Storing signing baskets on PGlite and PostgreSQL: a basket, its payments and the answer to its
// request (under its Idempotency-Key) go in one statement, concurrent baskets share statements, and
// each basket is still stored whole or not at all, once per key.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { validatePaymentBody } from '../../src/domain/payment-rules.ts';
import { findProduct } from '../../src/domain/products.ts';
import { insertBasketAnswering, type NewBasket } from '../../src/store/baskets-repository.ts';
import { findKey, type KeyClaim } from '../../src/store/idempotency-repository.ts';
import { backends, type GatewayPair, queryRows, startGatewayPair } from '../helpers/gateway.ts';
import { KEY_IN_FLIGHT, KEY_REUSED } from '../helpers/http.ts';
import { claimedKey } from '../helpers/key-claims.ts';
import { ACCOUNTS, domestic } from '../helpers/payments.ts';

const BASKET = '/psd2/se/v2/payments/private/signing-basket';
const PRODUCT = 'handelsbanken-domestic-credit-transfer';

interface BasketAnswer {
  payments: { paymentId: string; tppPaymentReference: string }[];
  signingBaskedId: string;
}

/** A basket of `size` payments from Tolvan's account, their amounts telling them apart. */
function payments(size: number, tag = 'p') {
  return Array.from({ length: size }, (_, index) => ({
    paymentProduct: PRODUCT,
    tppPaymentReference: `${tag}-${index}`,
    ...domestic({ instructedAmount: { currency: 'SEK', amount: `${index + 1}.50` } }),
  }));
}

/** What the database holds of a basket: its row and its payments by reference, and the transactions that wrote them. */
async function storedBasket(pair: GatewayPair, basketId: string) {
  const baskets = await queryRows<{ psuId: string; xmin: string }>(
    pair.store,
    sql`SELECT psu_id AS "psuId", xmin::text AS xmin FROM signing_baskets WHERE basket_id = ${basketId}`,
  );
  const rows = await queryRows<{
    id: string;
    reference: string;
    amount: string;
    status: string;
    xmin: string;
  }>(
    pair.store,
    sql`SELECT payment_id AS id, tpp_payment_reference AS reference, amount_minor::text AS amount, status,
               xmin::text AS xmin
          FROM payments WHERE basket_id = ${basketId} ORDER BY amount_minor`,
  );
  return { baskets, rows };
}

/** A basket ready for the repository: `size` validated payments of Tolvan's, and the answer naming them. */
function newBasket(
  clientId: string,
  claim: KeyClaim | undefined,
  size: number,
  psuId = ACCOUNTS.tolvan.psuId,
): NewBasket {
  const product = findProduct(PRODUCT)!;
  const basketId = randomUUID();
  const members = payments(size).map((item) => {
    const validated = validatePaymentBody(product, item, { country: 'SE', today: '2026-01-01' });
    assert.ok(validated.ok, 'the basket validates');
    return {
      id: randomUUID(),
      debtorAccountId: ACCOUNTS.tolvan.accountId,
      debtorCurrency: 'SEK',
      instruction: validated.value,
      tppPaymentReference: item.tppPaymentReference,
    };
  });
  const body = { payments: members.map((member) => member.id), signingBaskedId: basketId };
  return {
    basket: { basketId, clientId, psuId },
    customerType: 'private',
    corporateId: null,
    members,
    answer: claim === undefined ? undefined : { claim, statusCode: 200, body },
  };
}

for (const backend of backends()) {
  describe(`signing baskets stored on ${backend}`, () => {
    let pair: GatewayPair;
    let token: string;
    before(async () => {
      pair = await startGatewayPair(backend);
      token = await pair.first.client.clientCredentialsToken();
    });
    after(() => pair.close());

    const initiate = (gateway: 'first' | 'second', body: unknown, key = randomUUID()) =>
      pair[gateway].client.request<BasketAnswer>('POST', BASKET, {
        headers: { ...pair.first.client.tppHeaders(token), 'Idempotency-Key': `"${key}"` },
        json: body,
      });

    test('a basket of 20: its row, its 20 payments in ACTC and its answer, written by one statement', async () => {
      const key = randomUUID();
      const answer = await initiate('first', { payments: payments(20) }, key);
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
      const { payments: listed, signingBaskedId } = answer.body;
      assert.deepEqual(
        listed.map((payment) => payment.tppPaymentReference),
        payments(20).map((item) => item.tppPaymentReference),
      );
      const { baskets, rows } = await storedBasket(pair, signingBaskedId);
      assert.deepEqual(
        rows.map(({ xmin: _xmin, ...row }) => row),
        listed.map((payment, index) => ({
          id: payment.paymentId,
          reference: payment.tppPaymentReference,
          amount: `${(index + 1) * 100 + 50}`,
          status: 'ACTC',
        })),
      );
      assert.deepEqual(
        baskets.map((basket) => basket.psuId),
        [ACCOUNTS.tolvan.psuId],
      );
      // One transaction id on every row: the basket and its payments were one statement's.
      assert.deepEqual(new Set([...baskets, ...rows].map((row) => row.xmin)).size, 1);
      // The columns that repeat a payment's instruction are taken from it by the statement.
      const product = findProduct(PRODUCT)!;
      const columns = await queryRows(
        pair.store,
        sql`SELECT client_id, product, country, customer_type, psu_id, corporate_id, debtor_account_id,
                   amount_minor::text AS amount_minor, currency, creditor_name, creditor_account,
                   requested_execution_date, instruction, debtor_currency, tpp_payment_reference
              FROM payments WHERE basket_id = ${signingBaskedId} ORDER BY payments.amount_minor`,
      );
      assert.deepEqual(
        columns,
        payments(20).map((item, index) => {
          const validated = validatePaymentBody(product, item, { country: 'SE', today: '2026-01-01' });
          assert.ok(validated.ok, 'the payment validates');
          return {
            client_id: pair.first.sandboxApp.clientId,
            product: PRODUCT,
            country: 'SE',
            customer_type: 'private',
            psu_id: ACCOUNTS.tolvan.psuId,
            corporate_id: null,
            debtor_account_id: ACCOUNTS.tolvan.accountId,
            amount_minor: `${(index + 1) * 100 + 50}`,
            currency: 'SEK',
            creditor_name: null,
            creditor_account: validated.value.creditor.account,
            requested_execution_date: null,
            instruction: JSON.parse(JSON.stringify(validated.value)),
            debtor_currency: 'SEK',
            tpp_payment_reference: item.tppPaymentReference,
          };
        }),
      );
      const recorded = await findKey(pair.store.db, {
        clientId: pair.first.sandboxApp.clientId,
        operation: 'basket',
        key,
      });
      assert.deepEqual(recorded?.inFlight === false && [recorded.statusCode, recorded.body], [
        200,
        answer.body,
      ]);
    });

    test('one Idempotency-Key sent 10 times at once to two gateways: one basket; each answer the first or 409', async () => {
      const key = randomUUID();
      const body = { payments: payments(5) };
      const answers = await Promise.all(
        Array.from({ length: 10 }, (_, index) => initiate(index % 2 === 0 ? 'first' : 'second', body, key)),
      );
      const first = answers.find((answer) => answer.status === 200);
      assert.ok(first !== undefined, 'one of them is answered');
      const inFlight = KEY_IN_FLIGHT;
      for (const answer of answers) {
        assert.deepEqual(
          [answer.status, answer.body],
          answer.status === 200 ? [200, first.body] : [409, inFlight],
        );
      }
      const again = await initiate('second', body, key);
      assert.deepEqual([again.status, again.body], [200, first.body]);
      const [counted] = await queryRows<{ baskets: number; payments: number }>(
        pair.store,
        sql`SELECT count(DISTINCT b.basket_id)::int AS baskets, count(*)::int AS payments
              FROM signing_baskets b JOIN payments p ON p.basket_id = b.basket_id
             WHERE b.basket_id = ${first.body.signingBaskedId}`,
      );
      assert.deepEqual(counted, { baskets: 1, payments: 5 });
    });

    test("a single payment's key is another operation's; a basket's key with another basket is refused, storing nothing", async () => {
      const key = randomUUID();
      const single = await pair.first.client.request(
        'POST',
        `/psd2/se/v2/payments/private/single/${PRODUCT}`,
        {
          headers: { ...pair.first.client.tppHeaders(token), 'Idempotency-Key': `"${key}"` },
          json: domestic(),
        },
      );
      assert.equal(single.status, 200);
      const count = async () =>
        (await queryRows<{ n: number }>(pair.store, sql`SELECT count(*)::int AS n FROM signing_baskets`))[0]!
          .n;
      const stored = await initiate('second', { payments: payments(3) }, key);
      assert.equal(stored.status, 200, JSON.stringify(stored.body));
      const before = await count();
      const refused = await initiate('first', { payments: payments(4) }, key);
      assert.deepEqual([refused.status, refused.body], [422, KEY_REUSED]);
      assert.equal(await count(), before);
    });

    test('30 baskets at once share statements; a lost claim stores nothing, every row is its own', async () => {
      const clientId = pair.first.sandboxApp.clientId;
      // Baskets 0-19 under claims of their own, 20-24 without a key, 25-29 under claims lost (another token).
      const claims = await Promise.all(
        Array.from({ length: 30 }, () => claimedKey(pair.store.db, clientId, 'basket')),
      );
      const items = Array.from({ length: 30 }, (_, index) =>
        newBasket(
          clientId,
          index < 20 ? claims[index] : index < 25 ? undefined : { ...claims[index]!, token: randomUUID() },
          4,
        ),
      );
      const stored = await Promise.all(items.map((item) => insertBasketAnswering(pair.store.db, item)));
      assert.deepEqual(
        stored,
        items.map((_, index) => index < 25),
      );
      const xmins = new Set<string>();
      for (const [index, item] of items.entries()) {
        const { baskets, rows } = await storedBasket(pair, item.basket.basketId);
        const expected = stored[index] ? item.members.map((member) => member.id) : [];
        assert.deepEqual(
          rows.map((row) => row.id),
          expected,
          `basket ${index}`,
        );
        assert.equal(baskets.length, stored[index] ? 1 : 0, `basket ${index}`);
        for (const row of [...baskets, ...rows]) xmins.add(row.xmin);
        const recorded = await findKey(pair.store.db, claims[index]!);
        assert.deepEqual(
          recorded,
          index < 20
            ? {
                fingerprint: `print ${claims[index]!.key}`,
                inFlight: false,
                statusCode: 200,
                body: item.answer!.body,
              }
            : { fingerprint: `print ${claims[index]!.key}`, inFlight: true },
          `basket ${index}`,
        );
      }
      assert.ok(xmins.size < 25, `${xmins.size} statements for 25 baskets`);
    });

    test("a basket paid from another PSU's account is refused by the database, one without payments by the store", async () => {
      const clientId = pair.first.sandboxApp.clientId;
      const claim = await claimedKey(pair.store.db, clientId, 'basket');
      const basket = newBasket(clientId, claim, 3);
      const fromAgda: NewBasket = {
        ...basket,
        members: basket.members.map((member, at) =>
          at === 1 ? { ...member, debtorAccountId: ACCOUNTS.agda.accountId } : member,
        ),
      };
      await assert.rejects(insertBasketAnswering(pair.store.db, fromAgda), (error: Error) => {
        const text = `${error.message} ${(error.cause as Error | undefined)?.message ?? ''}`;
        assert.match(text, /payments_debtor_account_of_psu/, "the debtor account is not the PSU's");
        return true;
      });
      assert.throws(
        () => insertBasketAnswering(pair.store.db, { ...basket, members: [] }),
        new Error('a basket without payments'),
      );
      assert.deepEqual(await storedBasket(pair, basket.basket.basketId), { baskets: [], rows: [] });
      assert.deepEqual(await findKey(pair.store.db, claim), {
        fingerprint: `print ${claim.key}`,
        inFlight: true,
      });
    });

    test('a basket that fails in a shared statement fails alone and leaves nothing; the others are stored', async () => {
      const clientId = pair.first.sandboxApp.clientId;
      const claims = await Promise.all(
        Array.from({ length: 12 }, () => claimedKey(pair.store.db, clientId, 'basket')),
      );
      const items = Array.from({ length: 12 }, (_, index) =>
        newBasket(clientId, claims[index], 3, index === 7 ? 'no-such-psu' : ACCOUNTS.tolvan.psuId),
      );
      const outcomes = await Promise.allSettled(
        items.map((item) => insertBasketAnswering(pair.store.db, item)),
      );
      assert.deepEqual(
        outcomes.map((outcome) => outcome.status),
        items.map((_, index) => (index === 7 ? 'rejected' : 'fulfilled')),
      );
      const failed = items[7]!;
      assert.deepEqual(await storedBasket(pair, failed.basket.basketId), { baskets: [], rows: [] });
      assert.deepEqual(await findKey(pair.store.db, claims[7]!), {
        fingerprint: `print ${claims[7]!.key}`,
        inFlight: true,
      });
      for (const item of items.filter((_, index) => index !== 7))
        assert.equal((await storedBasket(pair, item.basket.basketId)).rows.length, 3);
    });
  });
}
