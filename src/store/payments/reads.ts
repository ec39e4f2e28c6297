// Reads of payments outside a transaction, each joined with the same reads of concurrent requests.
import type { Payment, PaymentStatusView } from '../../domain/payment.ts';
import { batchedRead } from '../batched-read.ts';
import { joinedStatement } from '../coalescer.ts';
import { runStatement, type StoreDb } from '../database.ts';
import { PAYMENT_FIELDS, type PaymentRow, type StatusRow, toPayment, toStatusView } from './rows.ts';

/** A payment by id; concurrent reads share a statement (see coalescer.ts). */
export function findPayment(db: StoreDb, paymentId: string): Promise<Payment | undefined> {
  return paymentReads(db, paymentId);
}

const paymentReads = joinedStatement('find_payments', findPayments, { reads: true });

async function findPayments(db: StoreDb, paymentIds: readonly string[]): Promise<(Payment | undefined)[]> {
  const rows = await runStatement<PaymentRow>(
    db,
    'find_payments',
    `SELECT ${PAYMENT_FIELDS}
       FROM unnest($1::text[]) AS wanted (id),
            LATERAL (SELECT * FROM payments WHERE payment_id = wanted.id LIMIT 1) AS payment`,
    [paymentIds],
  );
  const found = new Map(rows.map((row) => [row.paymentId, toPayment(row)]));
  return paymentIds.map((id) => found.get(id));
}

// Only the columns a status answer and its access checks need: a status read is the most frequent
// call, and the full row (three dates to parse, the remittance out of the instruction) cost it more.
const statusReads = batchedRead<string, StatusRow>(
  'find_statuses',
  `SELECT w.item::int AS item, p.payment_id AS "paymentId", p.client_id AS "clientId", p.product, p.country,
          p.psu_id AS "psuId", p.basket_id AS "basketId", p.status, p.executed_at AS "executedAt",
          p.reason_code AS "reasonCode", p.reason, p.debtor_currency AS "debtorCurrency", p.currency,
          p.amount_minor::float8 AS "amountMinor"
     FROM unnest($1::text[]) WITH ORDINALITY AS w (id, item) JOIN payments p ON p.payment_id = w.id
    WHERE p.payment_id = ANY ($1::text[])`,
  (ids) => [[...ids]],
);

/** What a status read needs of a payment by id; concurrent reads share a statement (see batched-read.ts). */
export async function findPaymentStatus(
  db: StoreDb,
  paymentId: string,
): Promise<PaymentStatusView | undefined> {
  const [row] = await statusReads(db, paymentId);
  return row === undefined ? undefined : toStatusView(row);
}
