// A new payment and the answer to the request that created it, stored in one statement; the payment
// travels as a JSON tuple whose instruction the statement reads its columns from (baskets use it too).
import type { PaymentInstruction } from '../../domain/payment-rules.ts';
import type { CustomerType } from '../../domain/products.ts';
import { joinedStatement } from '../coalescer.ts';
import { runStatement, type StoreDb } from '../database.ts';
import { inClaimOrder, type RecordedAnswer, requestKeyOf } from '../idempotency-repository.ts';

export interface NewPayment {
  readonly id: string;
  readonly clientId: string;
  readonly customerType: CustomerType;
  readonly psuId: string;
  readonly corporateId: string | null;
  readonly debtorAccountId: string;
  readonly debtorCurrency: string;
  readonly instruction: PaymentInstruction;
}

/** What a new payment has of its own; its app, PSU and customer may be named once for several. */
export type PaymentOfRow = Pick<NewPayment, 'id' | 'debtorAccountId' | 'debtorCurrency' | 'instruction'>;

/**
 * A new payment as a statement takes it: `[id, debtor account id, debtor currency, instruction]`. The
 * columns that repeat the instruction (product, country, amount, creditor, date) are taken from it by
 * the statement (`newPaymentValues`), so that each value travels once: the database parses the JSON
 * parameter in proportion to its length, and with a key per column and the instruction's values twice
 * that was a sixth of its work on a basket (issue 18, docs/decisions.md).
 */
export function newPaymentTuple(payment: PaymentOfRow): readonly unknown[] {
  return [payment.id, payment.debtorAccountId, payment.debtorCurrency, payment.instruction];
}

/** The columns `newPaymentValues` gives, in its order. */
export const NEW_PAYMENT_COLUMNS = `payment_id, client_id, product, country, customer_type, psu_id, corporate_id,
  debtor_account_id, amount_minor, currency, creditor_name, creditor_account, requested_execution_date,
  status, instruction, debtor_currency`;

/**
 * The select list of a new payment in ACTC from `tuple`, an SQL expression of `newPaymentTuple`'s form,
 * and the row `input`, which names the payment's app, customer type, PSU and corporate id ("clientId",
 * "customerType", "psuId", "corporateId"). The paths (`#>>`) read the instruction where it lies in the
 * parameter instead of copying it for each column.
 */
export function newPaymentValues(tuple: string, input: string): string {
  return `${tuple} ->> 0, ${input}."clientId", ${tuple} #>> '{3,product}', ${tuple} #>> '{3,country}',
    ${input}."customerType", ${input}."psuId", ${input}."corporateId", ${tuple} ->> 1,
    (${tuple} #>> '{3,amount,minor}')::bigint, ${tuple} #>> '{3,amount,currency}',
    ${tuple} #>> '{3,creditor,name}', ${tuple} #>> '{3,creditor,account}',
    (${tuple} #>> '{3,requestedExecutionDate}')::date, 'ACTC', ${tuple} -> 3, ${tuple} ->> 2`;
}

/**
 * Stores a new payment together with the answer to the request that created it, in one statement
 * (atomic without a transaction). Answers false, storing nothing, when the app already used the
 * request id: on PostgreSQL a concurrent claim of the same id waits for the first to commit.
 * Concurrent initiations share a statement and a commit (see coalescer.ts). The request id is the
 * payment's app's: `answer.key.clientId` is `payment.clientId`.
 */
export function insertPaymentAnswering(
  db: StoreDb,
  payment: NewPayment,
  answer: RecordedAnswer,
): Promise<boolean> {
  if (answer.key.clientId !== payment.clientId) throw new Error('a request id of another app');
  return initiations(db, { payment, answer });
}

interface Initiation {
  readonly payment: NewPayment;
  readonly answer: RecordedAnswer;
}

const initiations = joinedStatement('insert_payments_answering', insertPaymentsAnswering, {
  key: requestKeyOf,
});

/**
 * The payments whose request ids were still free, in one statement. The rows travel as one JSON
 * array (cheaper to send than a parameter per column); they go in the order of their request ids, so
 * that two statements claiming the same ids lock them in the same order.
 */
async function insertPaymentsAnswering(db: StoreDb, items: readonly Initiation[]): Promise<boolean[]> {
  const rows = inClaimOrder(items).map(({ payment, answer }) => ({
    clientId: payment.clientId,
    requestId: answer.key.requestId,
    fingerprint: answer.fingerprint,
    statusCode: answer.statusCode,
    body: answer.body,
    customerType: payment.customerType,
    psuId: payment.psuId,
    corporateId: payment.corporateId,
    payment: newPaymentTuple(payment),
  }));
  const stored = await runStatement<{ paymentId: string }>(
    db,
    'insert_payments_answering',
    `WITH input AS (
       SELECT * FROM jsonb_to_recordset($1::jsonb)
         AS t("clientId" text, "requestId" text, fingerprint text, "statusCode" integer, body jsonb,
              "customerType" text, "psuId" text, "corporateId" text, payment jsonb)
     ),
     claim AS (
       INSERT INTO idempotency_keys (client_id, request_id, fingerprint, status_code, body)
       SELECT "clientId", "requestId", fingerprint, "statusCode", body FROM input
       ON CONFLICT DO NOTHING
       RETURNING client_id, request_id
     )
     INSERT INTO payments (${NEW_PAYMENT_COLUMNS})
     SELECT ${newPaymentValues('i.payment', 'i')}
       FROM input i JOIN claim c ON c.client_id = i."clientId" AND c.request_id = i."requestId"
     RETURNING payment_id AS "paymentId"`,
    [JSON.stringify(rows)],
  );
  const ids = new Set(stored.map((row) => row.paymentId));
  return items.map(({ payment }) => ids.has(payment.id));
}
