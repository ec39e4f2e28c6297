import { and, asc, desc, eq, gte, lte, sql } from 'drizzle-orm';
import type { Payment, TransactionStatus } from '../domain/payment.ts';
import type { PaymentInstruction } from '../domain/payment-rules.ts';
import type { Country, CustomerType, PaymentProduct } from '../domain/products.ts';
import { Coalescer, perHandle } from './coalescer.ts';
import { type Db, runStatement } from './database.ts';
import type { RecordedAnswer } from './idempotency-repository.ts';
import { payments } from './schema.ts';

/** A payment row without its instruction (which the reads here do not need). */
type Row = Omit<typeof payments.$inferSelect, 'instruction'>;

export function toPayment(row: Row): Payment {
  return {
    id: row.paymentId,
    clientId: row.clientId,
    product: row.product as PaymentProduct,
    country: row.country as Country,
    customerType: row.customerType as CustomerType,
    psuId: row.psuId,
    corporateId: row.corporateId,
    debtorAccountId: row.debtorAccountId,
    debtorCurrency: row.debtorCurrency,
    amount: { currency: row.currency, minor: row.amountMinor },
    creditorName: row.creditorName,
    creditorAccount: row.creditorAccount,
    requestedExecutionDate: row.requestedExecutionDate,
    status: row.status as TransactionStatus,
    createdAt: row.createdAt,
    executedAt: row.executedAt,
    basketId: row.basketId,
    tppPaymentReference: row.tppPaymentReference,
    reasonCode: row.reasonCode,
    reason: row.reason,
  };
}

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

/** The column values of a new payment in ACTC. */
export function paymentValues(payment: NewPayment) {
  const { instruction } = payment;
  return {
    paymentId: payment.id,
    clientId: payment.clientId,
    product: instruction.product,
    country: instruction.country,
    customerType: payment.customerType,
    psuId: payment.psuId,
    corporateId: payment.corporateId,
    debtorAccountId: payment.debtorAccountId,
    debtorCurrency: payment.debtorCurrency,
    amountMinor: instruction.amount.minor,
    currency: instruction.amount.currency,
    creditorName: instruction.creditor.name,
    creditorAccount: instruction.creditor.account,
    requestedExecutionDate: instruction.requestedExecutionDate,
    status: 'ACTC',
    instruction,
  };
}

/**
 * Stores a new payment together with the answer to the request that created it, in one statement
 * (atomic without a transaction). Answers false, storing nothing, when the app already used the
 * request id: on PostgreSQL a concurrent claim of the same id waits for the first to commit.
 * Concurrent initiations share a statement and a commit (see coalescer.ts). The request id is the
 * payment's app's: `answer.key.clientId` is `payment.clientId`.
 */
export function insertPaymentAnswering(
  db: Db,
  payment: NewPayment,
  answer: RecordedAnswer,
): Promise<boolean> {
  if (answer.key.clientId !== payment.clientId) throw new Error('a request id of another app');
  return initiations(db).submit({ payment, answer });
}

interface Initiation {
  readonly payment: NewPayment;
  readonly answer: RecordedAnswer;
}

/**
 * One statement at a time, with everything that came meanwhile: measured on 2 cores with 16 clients,
 * one in flight beat two, three and four, for writes and reads alike (fewer, fuller statements).
 */
const BATCH_LIMITS = { maxInFlight: 1, maxBatch: 64 };
const idempotencyKey = ({ answer }: Initiation) => `${answer.key.clientId} ${answer.key.requestId}`;
const initiations = perHandle(
  (db: Db) =>
    new Coalescer((items: readonly Initiation[]) => insertPaymentsAnswering(db, items), {
      ...BATCH_LIMITS,
      key: idempotencyKey,
    }),
);

/**
 * The payments whose request ids were still free, in one statement. The rows travel as one JSON
 * array (cheaper to send than a parameter per column); they go in the order of their request ids, so
 * that two statements claiming the same ids lock them in the same order.
 */
async function insertPaymentsAnswering(db: Db, items: readonly Initiation[]): Promise<boolean[]> {
  const rows = items
    .map((item) => ({ key: idempotencyKey(item), item }))
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
    .map(({ item: { payment, answer } }) => ({
      ...paymentValues(payment),
      requestId: answer.key.requestId,
      fingerprint: answer.fingerprint,
      statusCode: answer.statusCode,
      body: answer.body,
    }));
  const stored = await runStatement<{ paymentId: string }>(
    db,
    'insert_payments_answering',
    `WITH input AS (
       SELECT * FROM jsonb_to_recordset($1::jsonb)
         AS t("clientId" text, "requestId" text, fingerprint text, "statusCode" integer, body jsonb,
              "paymentId" text, product text, country text, "customerType" text, "psuId" text,
              "corporateId" text, "debtorAccountId" text, "amountMinor" bigint, currency text,
              "creditorName" text, "creditorAccount" text, "requestedExecutionDate" date,
              instruction jsonb, "debtorCurrency" text)
     ),
     claim AS (
       INSERT INTO idempotency_keys (client_id, request_id, fingerprint, status_code, body)
       SELECT "clientId", "requestId", fingerprint, "statusCode", body FROM input
       ON CONFLICT DO NOTHING
       RETURNING client_id, request_id
     )
     INSERT INTO payments (payment_id, client_id, product, country, customer_type, psu_id, corporate_id,
                           debtor_account_id, amount_minor, currency, creditor_name, creditor_account,
                           requested_execution_date, status, instruction, debtor_currency)
     SELECT i."paymentId", i."clientId", i.product, i.country, i."customerType", i."psuId", i."corporateId",
            i."debtorAccountId", i."amountMinor", i.currency, i."creditorName", i."creditorAccount",
            i."requestedExecutionDate", 'ACTC', i.instruction, i."debtorCurrency"
       FROM input i JOIN claim c ON c.client_id = i."clientId" AND c.request_id = i."requestId"
     RETURNING payment_id AS "paymentId"`,
    [JSON.stringify(rows)],
  );
  const ids = new Set(stored.map((row) => row.paymentId));
  return items.map(({ payment }) => ids.has(payment.id));
}

/** A payment by id; concurrent reads share a statement (see coalescer.ts). */
export function findPayment(db: Db, paymentId: string): Promise<Payment | undefined> {
  return paymentReads(db).submit(paymentId);
}

const paymentReads = perHandle(
  (db: Db) => new Coalescer((ids: readonly string[]) => findPayments(db, ids), BATCH_LIMITS),
);

async function findPayments(db: Db, paymentIds: readonly string[]): Promise<(Payment | undefined)[]> {
  const rows = await runStatement<Row>(
    db,
    'find_payments',
    `SELECT payment_id AS "paymentId", client_id AS "clientId", product, country, customer_type AS "customerType",
            psu_id AS "psuId", corporate_id AS "corporateId", debtor_account_id AS "debtorAccountId",
            amount_minor::float8 AS "amountMinor", currency, creditor_name AS "creditorName",
            creditor_account AS "creditorAccount", requested_execution_date::text AS "requestedExecutionDate",
            status, created_at AS "createdAt", executed_at AS "executedAt", basket_id AS "basketId",
            tpp_payment_reference AS "tppPaymentReference", debtor_currency AS "debtorCurrency",
            reason_code AS "reasonCode", reason
       FROM unnest($1::text[]) AS wanted (id),
            LATERAL (SELECT * FROM payments WHERE payment_id = wanted.id LIMIT 1) AS payment`,
    [paymentIds],
  );
  const found = new Map(rows.map((row) => [row.paymentId, toPayment(row)]));
  return paymentIds.map((id) => found.get(id));
}

/** Reads a payment and locks its row until the transaction ends (SELECT ... FOR UPDATE). */
export async function lockPayment(trx: Db, paymentId: string): Promise<Payment | undefined> {
  const rows = await trx
    .select()
    .from(payments)
    .where(eq(payments.paymentId, paymentId))
    .limit(1)
    .for('update');
  return rows[0] === undefined ? undefined : toPayment(rows[0]);
}

/**
 * Due future-dated payments, locked for this transaction; rows another process has locked are skipped,
 * so several schedulers share the work and never book a payment twice.
 */
export async function lockDuePayments(trx: Db, today: string, limit: number): Promise<Payment[]> {
  const rows = await trx
    .select()
    .from(payments)
    .where(and(eq(payments.status, 'ACCP'), lte(payments.requestedExecutionDate, today)))
    .orderBy(asc(payments.requestedExecutionDate), asc(payments.paymentId))
    .limit(limit)
    .for('update', { skipLocked: true });
  return rows.map(toPayment);
}

/** Moves a payment from one status to another; answers false when it was no longer in `from`. */
export async function moveStatus(
  trx: Db,
  paymentId: string,
  from: TransactionStatus,
  to: TransactionStatus,
  at: Date,
): Promise<boolean> {
  const rows = await trx
    .update(payments)
    .set({ status: to, executedAt: at })
    .where(and(eq(payments.paymentId, paymentId), eq(payments.status, from)))
    .returning({ paymentId: payments.paymentId });
  return rows.length === 1;
}

/** The bank rejected the payment at execution: RJCT with its reason. */
export async function rejectPayment(
  trx: Db,
  paymentId: string,
  from: TransactionStatus,
  rejection: { reasonCode: string; reason: string },
  at: Date,
): Promise<boolean> {
  const rows = await trx
    .update(payments)
    .set({ status: 'RJCT', executedAt: at, reasonCode: rejection.reasonCode, reason: rejection.reason })
    .where(and(eq(payments.paymentId, paymentId), eq(payments.status, from)))
    .returning({ paymentId: payments.paymentId });
  return rows.length === 1;
}

/** A future-dated payment waiting for its date (ACCP): a pending line of its debtor account's statement. */
export interface ScheduledDebit {
  readonly amountMinor: number;
  readonly currency: string;
  readonly requestedExecutionDate: string;
  readonly createdAt: Date;
  readonly creditorName: string | null;
  readonly remittance: string | null;
}

/** An account's payments waiting for a date from `from` to `to` (inclusive), latest first. */
export async function listScheduledDebits(
  db: Db,
  accountId: string,
  range: { from: string; to: string },
): Promise<ScheduledDebit[]> {
  const rows = await db
    .select({
      amountMinor: payments.amountMinor,
      currency: payments.currency,
      requestedExecutionDate: payments.requestedExecutionDate,
      createdAt: payments.createdAt,
      creditorName: payments.creditorName,
      remittance: sql<string | null>`${payments.instruction}->>'remittance'`,
    })
    .from(payments)
    .where(
      and(
        eq(payments.debtorAccountId, accountId),
        eq(payments.status, 'ACCP'),
        gte(payments.requestedExecutionDate, range.from),
        lte(payments.requestedExecutionDate, range.to),
      ),
    )
    .orderBy(desc(payments.requestedExecutionDate), desc(payments.createdAt));
  return rows.map((row) => ({ ...row, requestedExecutionDate: row.requestedExecutionDate! }));
}
