// A payment's row and the domain object it maps to: the one place a row becomes a Payment.
import { getTableColumns, sql } from 'drizzle-orm';
import type { Payment, PaymentStatusView, TransactionStatus } from '../../domain/payment.ts';
import type { Country, CustomerType, PaymentProduct } from '../../domain/products.ts';
import { payments } from '../schema.ts';

/** A payment row with its message instead of the whole instruction (which the reads here do not need). */
export type PaymentRow = Omit<typeof payments.$inferSelect, 'instruction'> & {
  readonly remittance: string | null;
};

/** The columns a payment is read with: every one but the instruction, of which only the message. */
const { instruction: _instruction, ...plainColumns } = getTableColumns(payments);
export const paymentColumns = {
  ...plainColumns,
  remittance: sql<string | null>`${payments.instruction}->>'remittance'`,
};

export function toPayment(row: PaymentRow): Payment {
  // Object.assign onto the view, not `{ ...toStatusView(row), ... }`: on Node 20 that spread followed by
  // members cost 10 µs here (docs/decisions.md, "Spreads followed by members").
  return Object.assign(toStatusView(row), {
    customerType: row.customerType as CustomerType,
    corporateId: row.corporateId,
    debtorAccountId: row.debtorAccountId,
    creditorName: row.creditorName,
    creditorAccount: row.creditorAccount,
    requestedExecutionDate: row.requestedExecutionDate,
    createdAt: row.createdAt,
    tppPaymentReference: row.tppPaymentReference,
    remittance: row.remittance,
    booking:
      row.bookingKey === null || row.bookingStartedAt === null
        ? null
        : { key: row.bookingKey, startedAt: row.bookingStartedAt },
  });
}

/** The columns a status read takes (find_statuses): the view's, named as in a payment's row. */
export type StatusRow = Pick<
  PaymentRow,
  Exclude<keyof PaymentStatusView, 'id' | 'amount'> | 'paymentId' | 'currency' | 'amountMinor'
>;

export function toStatusView(row: StatusRow): PaymentStatusView {
  return {
    id: row.paymentId,
    clientId: row.clientId,
    product: row.product as PaymentProduct,
    country: row.country as Country,
    psuId: row.psuId,
    basketId: row.basketId,
    status: row.status as TransactionStatus,
    executedAt: row.executedAt,
    reasonCode: row.reasonCode,
    reason: row.reason,
    debtorCurrency: row.debtorCurrency,
    amount: { currency: row.currency, minor: row.amountMinor },
  };
}

/** The columns of a payment row as `toPayment` takes them, for statements written out in SQL. */
export const PAYMENT_FIELDS = `payment_id AS "paymentId", client_id AS "clientId", product, country,
       customer_type AS "customerType", psu_id AS "psuId", corporate_id AS "corporateId",
       debtor_account_id AS "debtorAccountId", amount_minor::float8 AS "amountMinor", currency,
       creditor_name AS "creditorName", creditor_account AS "creditorAccount",
       requested_execution_date::text AS "requestedExecutionDate", status, created_at AS "createdAt",
       executed_at AS "executedAt", basket_id AS "basketId", tpp_payment_reference AS "tppPaymentReference",
       debtor_currency AS "debtorCurrency", reason_code AS "reasonCode", reason,
       instruction->>'remittance' AS remittance, booking_key AS "bookingKey",
       booking_started_at AS "bookingStartedAt"`;
