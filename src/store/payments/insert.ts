// A new payment and the answer to the request that created it, stored in one statement; the payment
// travels as a JSON tuple whose instruction the statement reads its columns from (baskets use it too).

import type { AuditActor } from '../../domain/audit.ts';
import { type NotificationSubscription, subscriptionColumns } from '../../domain/notifications.ts';
import type { PaymentInstruction } from '../../domain/payment-rules.ts';
import type { CustomerType } from '../../domain/products.ts';
import { ACTOR_INPUT_COLUMNS, actorColumns, auditInsertSql } from '../audit/record.ts';
import { joinedStatement } from '../coalescer.ts';
import { runStatement, type StoreDb } from '../database.ts';
import { answerColumns, type RecordedAnswer, recordAnswersSql } from '../idempotency-repository.ts';

export interface NewPayment {
  readonly id: string;
  readonly clientId: string;
  readonly customerType: CustomerType;
  readonly psuId: string;
  readonly corporateId: string | null;
  readonly debtorAccountId: string;
  readonly debtorCurrency: string;
  readonly instruction: PaymentInstruction;
  /** The TPP's subscription to its status notifications, if it sent one. */
  readonly notification?: NotificationSubscription | undefined;
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
  status, instruction, debtor_currency, notification_uri, notification_content`;

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
    (${tuple} #>> '{3,requestedExecutionDate}')::date, 'ACTC', ${tuple} -> 3, ${tuple} ->> 2,
    ${input}."notificationUri", ${input}."notificationContent"`;
}

/**
 * Stores a new payment, with the answer to the request that created it under its Idempotency-Key's
 * claim when it has one, in one statement (atomic without a transaction). Answers false, storing
 * nothing, when the claim is no longer the request's. Concurrent initiations share a statement and a
 * commit (see coalescer.ts). Without a key nothing but the payment is written.
 */
export function insertPaymentAnswering(
  db: StoreDb,
  payment: NewPayment,
  answer: RecordedAnswer | undefined,
  actor?: AuditActor,
): Promise<boolean> {
  return initiations(db, { payment, answer, actor });
}

interface Initiation {
  readonly payment: NewPayment;
  readonly answer: RecordedAnswer | undefined;
  /** Who initiated it: the audit trail's `payment.initiated` record, written by the same statement. */
  readonly actor: AuditActor | undefined;
}

const initiations = joinedStatement('insert_payments_answering', insertPaymentsAnswering);

/**
 * The payments whose claims still held (or that had none), in one statement. The rows travel as one
 * JSON array (cheaper to send than a parameter per column); a row without a key carries no answer.
 */
async function insertPaymentsAnswering(db: StoreDb, items: readonly Initiation[]): Promise<boolean[]> {
  const rows = items.map(({ payment, answer, actor }) =>
    Object.assign(
      actorColumns(actor),
      {
        clientId: payment.clientId,
        customerType: payment.customerType,
        psuId: payment.psuId,
        corporateId: payment.corporateId,
        payment: newPaymentTuple(payment),
      },
      subscriptionColumns(payment.notification),
      answerColumns(answer),
    ),
  );
  // The rows whose claims still held (or that had none): stored, and each recorded by the same input
  // row (no join back to what was stored: the statement stores every row of it or fails whole).
  const kept = 'input i WHERE i.claim IS NULL OR i.claim IN (SELECT claim FROM recorded)';
  const stored = await runStatement<{ paymentId: string }>(
    db,
    'insert_payments_answering',
    `WITH input AS (
       SELECT * FROM jsonb_to_recordset($1::jsonb)
         AS t("clientId" text, "customerType" text, "psuId" text, "corporateId" text, payment jsonb,
              "claimClient" text, operation text, key text, claim text, "statusCode" integer, body jsonb,
              "notificationUri" text, "notificationContent" text, ${ACTOR_INPUT_COLUMNS})
     ),
     recorded AS (${recordAnswersSql('input')}),
     stored AS (
       INSERT INTO payments (${NEW_PAYMENT_COLUMNS})
       SELECT ${newPaymentValues('i.payment', 'i')} FROM ${kept}
       RETURNING payment_id
     ),
     audited AS (${auditInsertSql(kept, 'i', {
       event: `'payment.initiated'`,
       outcome: `'ACTC'`,
       resource: `i.payment ->> 0`,
       app: 'i."clientId"',
       psu: 'i."psuId"',
       detail: `jsonb_build_object('product', i.payment #>> '{3,product}')`,
     })})
     SELECT payment_id AS "paymentId" FROM stored`,
    [JSON.stringify(rows)],
  );
  const ids = new Set(stored.map((row) => row.paymentId));
  return items.map(({ payment }) => ids.has(payment.id));
}
