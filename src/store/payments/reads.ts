// Reads of payments outside a transaction, each joined with the same reads of concurrent requests.
import type { Payment, PaymentStatusView } from '../../domain/payment.ts';
import { batchedRead } from '../batched-read.ts';
import { joinedStatement } from '../coalescer.ts';
import { runStatement, type StoreDb } from '../database.ts';
import type { RequestKey } from '../idempotency-repository.ts';
import { PAYMENT_FIELDS, type PaymentRow, type StatusRow, toPayment, toStatusView } from './rows.ts';

/** A payment by id; concurrent reads share a statement (see coalescer.ts). */
export function findPayment(db: StoreDb, paymentId: string): Promise<Payment | undefined> {
  return paymentReads(db, paymentId);
}

const paymentReads = joinedStatement('find_payments', findPayments);

async function findPayments(db: StoreDb, paymentIds: readonly string[]): Promise<(Payment | undefined)[]> {
  const rows = await runStatement<PaymentRow>(
    db,
    'find_payments',
    `SELECT payment_id AS "paymentId", client_id AS "clientId", product, country, customer_type AS "customerType",
            psu_id AS "psuId", corporate_id AS "corporateId", debtor_account_id AS "debtorAccountId",
            amount_minor::float8 AS "amountMinor", currency, creditor_name AS "creditorName",
            creditor_account AS "creditorAccount", requested_execution_date::text AS "requestedExecutionDate",
            status, created_at AS "createdAt", executed_at AS "executedAt", basket_id AS "basketId",
            tpp_payment_reference AS "tppPaymentReference", debtor_currency AS "debtorCurrency",
            reason_code AS "reasonCode", reason, instruction->>'remittance' AS remittance,
            booking_key AS "bookingKey", booking_started_at AS "bookingStartedAt"
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

const paymentsToExecute = batchedRead<
  { paymentId: string; key: RequestKey },
  Partial<PaymentRow> & { answered: boolean }
>(
  'payments_to_execute',
  `SELECT w.item::int AS item, p.*,
          EXISTS (SELECT 1 FROM idempotency_keys k
                   WHERE k.client_id = w.client_id AND k.request_id = w.request_id) AS answered
     FROM unnest($1::text[], $2::text[], $3::text[]) WITH ORDINALITY AS w (payment_id, client_id, request_id, item)
     LEFT JOIN LATERAL (SELECT ${PAYMENT_FIELDS} FROM payments WHERE payment_id = w.payment_id) AS p ON true`,
  (reads) => [
    reads.map((read) => read.paymentId),
    reads.map((read) => read.key.clientId),
    reads.map((read) => read.key.requestId),
  ],
);

/**
 * A payment to execute, and whether the app has an answer recorded under the request id, in one
 * statement joined with concurrent executions' (an execution's first read).
 */
export async function findPaymentToExecute(
  db: StoreDb,
  paymentId: string,
  key: RequestKey,
): Promise<{ payment: Payment | undefined; answered: boolean }> {
  const [row] = await paymentsToExecute(db, { paymentId, key });
  return {
    payment: row?.paymentId == null ? undefined : toPayment(row as PaymentRow),
    answered: row?.answered === true,
  };
}
