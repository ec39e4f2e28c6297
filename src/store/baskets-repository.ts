// Signing baskets and their payments.
import { asc, eq } from 'drizzle-orm';
import type { Basket } from '../domain/baskets.ts';
import type { Payment } from '../domain/payment.ts';
import type { CustomerType } from '../domain/products.ts';
import { joinedStatement } from './coalescer.ts';
import { type Db, runStatement, type StoreDb } from './database.ts';
import { inClaimOrder, type RecordedAnswer, requestKeyOf } from './idempotency-repository.ts';
import {
  NEW_PAYMENT_COLUMNS,
  newPaymentTuple,
  newPaymentValues,
  type PaymentOfRow,
} from './payments/insert.ts';
import { paymentColumns, toPayment } from './payments/rows.ts';
import { payments, signingBaskets } from './schema.ts';

export async function findBasket(db: Db, basketId: string): Promise<Basket | undefined> {
  const rows = await db
    .select({
      basketId: signingBaskets.basketId,
      clientId: signingBaskets.clientId,
      psuId: signingBaskets.psuId,
    })
    .from(signingBaskets)
    .where(eq(signingBaskets.basketId, basketId))
    .limit(1);
  return rows[0];
}

/** A basket's payment: its app and PSU are the basket's, its customer the basket's customer. */
export type BasketMember = PaymentOfRow & { readonly tppPaymentReference: string };

export interface NewBasket {
  readonly basket: Basket;
  /** The customer all its payments are for (a PSU's own accounts: no corporate id for a private one). */
  readonly customerType: CustomerType;
  readonly corporateId: string | null;
  readonly members: readonly BasketMember[];
  /** The answer to the request that created it: `answer.key.clientId` is the basket's app. */
  readonly answer: RecordedAnswer;
}

/**
 * Stores a basket, all its payments and the answer to its request in one statement: all of it or,
 * when the app already used the request id, nothing (answers false). One statement needs no
 * transaction, so no connection is held between round trips; concurrent baskets share a statement
 * and a commit (see coalescer.ts). On PostgreSQL a concurrent claim of the same id waits for the first.
 */
export function insertBasketAnswering(db: StoreDb, basket: NewBasket): Promise<boolean> {
  if (basket.answer.key.clientId !== basket.basket.clientId) throw new Error('a request id of another app');
  // Without payments the statement would claim the request id and store the basket, yet answer false.
  if (basket.members.length === 0) throw new Error('a basket without payments');
  return basketInitiations(db, basket);
}

/**
 * Unlike single payments (two statements in flight), a basket's statement is mostly the database's
 * work on its rows, which runs on several cores: measured on 2 cores with 50 clients and baskets of
 * 20, four in flight of up to 16 baskets beat one or two of 16, four of 8, eight of 4 and no joining.
 */
const basketInitiations = joinedStatement('insert_baskets_answering', insertBasketsAnswering, {
  maxInFlight: 4,
  maxBatch: 16,
  key: requestKeyOf,
});

/**
 * The baskets whose request ids were still free. Everything travels as one JSON array (a parameter
 * per column would be thousands, and building them cost more CPU than the statement); baskets go in
 * the order of their request ids, so that two statements claiming the same ids lock them in one order.
 * A basket's payments are inserted only with their basket, and the basket only with its claim. A
 * payment travels as `newPaymentTuple` with its reference; its app, PSU and customer are the basket's.
 */
async function insertBasketsAnswering(db: StoreDb, items: readonly NewBasket[]): Promise<boolean[]> {
  // Object.assign, not `{ ...basket, ... }`: docs/decisions.md, "Spreads followed by members".
  const rows = inClaimOrder(items).map(({ basket, customerType, corporateId, members, answer }) =>
    Object.assign({}, basket, {
      customerType,
      corporateId,
      requestId: answer.key.requestId,
      fingerprint: answer.fingerprint,
      statusCode: answer.statusCode,
      body: answer.body,
      payments: members.map((member) => [...newPaymentTuple(member), member.tppPaymentReference]),
    }),
  );
  const stored = await runStatement<{ basketId: string }>(
    db,
    'insert_baskets_answering',
    `WITH input AS (
       SELECT * FROM jsonb_to_recordset($1::jsonb)
         AS t("basketId" text, "clientId" text, "psuId" text, "customerType" text, "corporateId" text,
              "requestId" text, fingerprint text, "statusCode" integer, body jsonb, payments jsonb)
     ),
     claim AS (
       INSERT INTO idempotency_keys (client_id, request_id, fingerprint, status_code, body)
       SELECT "clientId", "requestId", fingerprint, "statusCode", body FROM input
       ON CONFLICT DO NOTHING
       RETURNING client_id, request_id
     ),
     basket AS (
       INSERT INTO signing_baskets (basket_id, client_id, psu_id)
       SELECT i."basketId", i."clientId", i."psuId"
         FROM input i JOIN claim c ON c.client_id = i."clientId" AND c.request_id = i."requestId"
       RETURNING basket_id
     ),
     member AS (
       INSERT INTO payments (${NEW_PAYMENT_COLUMNS}, basket_id, tpp_payment_reference)
       SELECT ${newPaymentValues('m.tuple', 'i')}, b.basket_id, m.tuple ->> 4
         FROM basket b
         JOIN input i ON i."basketId" = b.basket_id,
              jsonb_array_elements(i.payments) AS m (tuple)
       RETURNING basket_id
     )
     SELECT DISTINCT basket_id AS "basketId" FROM member`,
    [JSON.stringify(rows)],
  );
  const ids = new Set(stored.map((row) => row.basketId));
  return items.map(({ basket }) => ids.has(basket.basketId));
}

export async function listBasketPayments(db: Db, basketId: string): Promise<Payment[]> {
  const rows = await db
    .select(paymentColumns)
    .from(payments)
    .where(eq(payments.basketId, basketId))
    .orderBy(asc(payments.createdAt), asc(payments.paymentId));
  return rows.map(toPayment);
}

/** The basket's payments, locked until the transaction ends (in one order, so lockers never deadlock). */
export async function lockBasketPayments(trx: Db, basketId: string): Promise<Payment[]> {
  const rows = await trx
    .select(paymentColumns)
    .from(payments)
    .where(eq(payments.basketId, basketId))
    .orderBy(asc(payments.paymentId))
    .for('update');
  return rows.map(toPayment);
}
