// Signing baskets and their payments.

import { asc, eq } from 'drizzle-orm';
import type { AuditActor } from '../domain/audit.ts';
import type { Basket } from '../domain/baskets.ts';
import { type NotificationSubscription, subscriptionColumns } from '../domain/notifications.ts';
import type { Payment } from '../domain/payment.ts';
import type { CustomerType } from '../domain/products.ts';
import { ACTOR_INPUT_COLUMNS, actorColumns, auditInsertSql } from './audit/record.ts';
import { joinedStatement } from './coalescer.ts';
import { type Db, runStatement, type StoreDb } from './database.ts';
import { answerColumns, type RecordedAnswer, recordAnswersSql } from './idempotency-repository.ts';
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
  /** The answer to the request that created it, under its Idempotency-Key's claim; none without a key. */
  readonly answer: RecordedAnswer | undefined;
  /** Who initiated it: a `payment.initiated` record per payment, written by the same statement. */
  readonly actor?: AuditActor | undefined;
  /** The TPP's subscription to status notifications: the basket's and each of its payments'. */
  readonly notification?: NotificationSubscription | undefined;
}

/**
 * Stores a basket, all its payments and the answer to its request (under its Idempotency-Key's claim)
 * in one statement: all of it or, when the claim is no longer the request's, nothing (answers false).
 * One statement needs no transaction, so no connection is held between round trips; concurrent
 * baskets share a statement and a commit (see coalescer.ts).
 */
export function insertBasketAnswering(db: StoreDb, basket: NewBasket): Promise<boolean> {
  // Without payments the statement would record the answer and store the basket, yet answer false.
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
});

/**
 * The baskets whose claims still held (or that had none). Everything travels as one JSON array (a
 * parameter per column would be thousands, and building them cost more CPU than the statement).
 * A basket's payments are inserted only with their basket, and the basket only with its claim. A
 * payment travels as `newPaymentTuple` with its reference; its app, PSU and customer are the basket's.
 */
async function insertBasketsAnswering(db: StoreDb, items: readonly NewBasket[]): Promise<boolean[]> {
  // Object.assign, not `{ ...basket, ... }`: docs/decisions.md, "Spreads followed by members".
  const rows = items.map(({ basket, customerType, corporateId, members, answer, actor, notification }) =>
    Object.assign(
      actorColumns(actor),
      basket,
      subscriptionColumns(notification),
      {
        customerType,
        corporateId,
        payments: members.map((member) => [...newPaymentTuple(member), member.tppPaymentReference]),
      },
      answerColumns(answer),
    ),
  );
  const stored = await runStatement<{ basketId: string }>(
    db,
    'insert_baskets_answering',
    `WITH input AS (
       SELECT * FROM jsonb_to_recordset($1::jsonb)
         AS t("basketId" text, "clientId" text, "psuId" text, "customerType" text, "corporateId" text,
              payments jsonb, "claimClient" text, operation text, key text, claim text,
              "statusCode" integer, body jsonb, "notificationUri" text, "notificationContent" text,
              ${ACTOR_INPUT_COLUMNS})
     ),
     recorded AS (${recordAnswersSql('input')}),
     basket AS (
       INSERT INTO signing_baskets (basket_id, client_id, psu_id, notification_uri, notification_content)
       SELECT i."basketId", i."clientId", i."psuId", i."notificationUri", i."notificationContent"
         FROM input i WHERE i.claim IS NULL OR i.claim IN (SELECT claim FROM recorded)
       RETURNING basket_id
     ),
     member AS (
       INSERT INTO payments (${NEW_PAYMENT_COLUMNS}, basket_id, tpp_payment_reference)
       SELECT ${newPaymentValues('m.tuple', 'i')}, b.basket_id, m.tuple ->> 4
         FROM basket b
         JOIN input i ON i."basketId" = b.basket_id,
              jsonb_array_elements(i.payments) AS m (tuple)
       RETURNING basket_id, payment_id, client_id, psu_id, product
     ),
     audited AS (${auditInsertSql('member m JOIN input i ON i."basketId" = m.basket_id', 'i', {
       event: `'payment.initiated'`,
       outcome: `'ACTC'`,
       resource: 'm.payment_id',
       app: 'm.client_id',
       psu: 'm.psu_id',
       detail: `jsonb_build_object('product', m.product, 'basketId', m.basket_id)`,
     })})
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
