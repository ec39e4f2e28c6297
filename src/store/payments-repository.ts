import { and, eq, sql } from 'drizzle-orm';
import type { Payment, TransactionStatus } from '../domain/payment.ts';
import type { PaymentInstruction } from '../domain/payment-rules.ts';
import type { Country, CustomerType, PaymentProduct } from '../domain/products.ts';
import type { Db } from './database.ts';
import { preparedFor } from './prepared.ts';
import { payments } from './schema.ts';

type Row = typeof payments.$inferSelect;

function toPayment(row: Row): Payment {
  return {
    id: row.paymentId,
    clientId: row.clientId,
    product: row.product as PaymentProduct,
    country: row.country as Country,
    customerType: row.customerType as CustomerType,
    psuId: row.psuId,
    corporateId: row.corporateId,
    debtorAccountId: row.debtorAccountId,
    amount: { currency: row.currency, minor: row.amountMinor },
    creditorName: row.creditorName,
    creditorAccount: row.creditorAccount,
    requestedExecutionDate: row.requestedExecutionDate,
    status: row.status as TransactionStatus,
    createdAt: row.createdAt,
    executedAt: row.executedAt,
  };
}

export interface NewPayment {
  readonly id: string;
  readonly clientId: string;
  readonly customerType: CustomerType;
  readonly psuId: string;
  readonly corporateId: string | null;
  readonly debtorAccountId: string;
  readonly instruction: PaymentInstruction;
}

export async function insertPayment(db: Db, payment: NewPayment): Promise<Payment> {
  const { instruction } = payment;
  const rows = await db
    .insert(payments)
    .values({
      paymentId: payment.id,
      clientId: payment.clientId,
      product: instruction.product,
      country: instruction.country,
      customerType: payment.customerType,
      psuId: payment.psuId,
      corporateId: payment.corporateId,
      debtorAccountId: payment.debtorAccountId,
      amountMinor: instruction.amount.minor,
      currency: instruction.amount.currency,
      creditorName: instruction.creditor.name,
      creditorAccount: instruction.creditor.account,
      requestedExecutionDate: instruction.requestedExecutionDate,
      status: 'ACTC',
      instruction,
    })
    .returning();
  return toPayment(rows[0]!);
}

const findPaymentQuery = preparedFor((db) =>
  db
    .select()
    .from(payments)
    .where(eq(payments.paymentId, sql.placeholder('paymentId')))
    .limit(1)
    .prepare('find_payment'),
);

export async function findPayment(db: Db, paymentId: string): Promise<Payment | undefined> {
  const rows = await findPaymentQuery(db).execute({ paymentId });
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

/** Moves a payment out of ACTC; answers false when it was no longer in ACTC. */
export async function markExecuted(
  trx: Db,
  paymentId: string,
  status: Exclude<TransactionStatus, 'ACTC'>,
  at: Date,
): Promise<boolean> {
  const rows = await trx
    .update(payments)
    .set({ status, executedAt: at })
    .where(and(eq(payments.paymentId, paymentId), eq(payments.status, 'ACTC')))
    .returning({ paymentId: payments.paymentId });
  return rows.length === 1;
}
