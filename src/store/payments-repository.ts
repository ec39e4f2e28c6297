import { and, asc, desc, eq, gte, lte, sql } from 'drizzle-orm';
import type { Payment, TransactionStatus } from '../domain/payment.ts';
import type { PaymentInstruction } from '../domain/payment-rules.ts';
import type { Country, CustomerType, PaymentProduct } from '../domain/products.ts';
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
 */
export async function insertPaymentAnswering(
  db: Db,
  payment: NewPayment,
  answer: RecordedAnswer,
): Promise<boolean> {
  const { instruction } = payment;
  const rows = await runStatement(
    db,
    'insert_payment_answering',
    `WITH claim AS (
       INSERT INTO idempotency_keys (client_id, request_id, fingerprint, status_code, body)
       VALUES ($1, $2, $3, $4, $5::jsonb)
       ON CONFLICT DO NOTHING
       RETURNING request_id
     )
     INSERT INTO payments (payment_id, client_id, product, country, customer_type, psu_id, corporate_id,
                           debtor_account_id, amount_minor, currency, creditor_name, creditor_account,
                           requested_execution_date, status, instruction, debtor_currency)
     SELECT $6, $1, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17::date, 'ACTC', $18::jsonb, $19
       FROM claim
     RETURNING payment_id`,
    [
      answer.key.clientId,
      answer.key.requestId,
      answer.fingerprint,
      answer.statusCode,
      JSON.stringify(answer.body),
      payment.id,
      instruction.product,
      instruction.country,
      payment.customerType,
      payment.psuId,
      payment.corporateId,
      payment.debtorAccountId,
      instruction.amount.minor,
      instruction.amount.currency,
      instruction.creditor.name,
      instruction.creditor.account,
      instruction.requestedExecutionDate,
      JSON.stringify(instruction),
      payment.debtorCurrency,
    ],
  );
  return rows.length === 1;
}

export async function findPayment(db: Db, paymentId: string): Promise<Payment | undefined> {
  const rows = await runStatement<Row>(
    db,
    'find_payment',
    `SELECT payment_id AS "paymentId", client_id AS "clientId", product, country, customer_type AS "customerType",
            psu_id AS "psuId", corporate_id AS "corporateId", debtor_account_id AS "debtorAccountId",
            amount_minor::float8 AS "amountMinor", currency, creditor_name AS "creditorName",
            creditor_account AS "creditorAccount", requested_execution_date::text AS "requestedExecutionDate",
            status, created_at AS "createdAt", executed_at AS "executedAt", basket_id AS "basketId",
            tpp_payment_reference AS "tppPaymentReference", debtor_currency AS "debtorCurrency",
            reason_code AS "reasonCode", reason
       FROM payments WHERE payment_id = $1`,
    [paymentId],
  );
  return rows[0] === undefined ? undefined : toPayment(rows[0]);
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
