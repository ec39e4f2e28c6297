// The payment as a state machine. transactionStatus changes only when the TPP executes (API-NOTES).
import type { Money } from './money.ts';
import type { Country, CustomerType, PaymentProduct, SettlementStatus } from './products.ts';

export type TransactionStatus = 'ACTC' | 'ACCP' | 'ACSC' | 'ACCC' | 'RJCT' | 'CANC';

export interface Payment {
  readonly id: string;
  readonly clientId: string;
  readonly product: PaymentProduct;
  readonly country: Country;
  readonly customerType: CustomerType;
  /** The PSU who owns the debtor account and authorizes the payment. */
  readonly psuId: string;
  readonly corporateId: string | null;
  readonly debtorAccountId: string;
  /** The debtor account's currency (differs from the amount's for cross-currency payments). */
  readonly debtorCurrency: string;
  readonly amount: Money;
  readonly creditorName: string | null;
  readonly creditorAccount: string;
  readonly requestedExecutionDate: string | null;
  readonly status: TransactionStatus;
  readonly createdAt: Date;
  readonly executedAt: Date | null;
  /** The signing basket the payment belongs to; it is then authorized and executed only with it. */
  readonly basketId: string | null;
  readonly tppPaymentReference: string | null;
  /** Why the bank rejected it (RJCT only): an ISO 20022 reason code and a text. */
  readonly reasonCode: string | null;
  readonly reason: string | null;
}

/** What executing a payment in ACTC leads to, when the bank accepts it. */
export function statusAfterExecution(
  payment: Pick<Payment, 'requestedExecutionDate'>,
  settlement: SettlementStatus,
  today: string,
): 'ACCP' | SettlementStatus {
  if (payment.requestedExecutionDate !== null && payment.requestedExecutionDate > today) return 'ACCP';
  return settlement;
}

/** Statuses a payment never leaves: settled, rejected or cancelled. */
export function isFinal(status: TransactionStatus): boolean {
  return status === 'ACCC' || status === 'ACSC' || status === 'RJCT' || status === 'CANC';
}

/** A payment waits for execution only in ACTC; any other status is final or already executed. */
export function awaitsExecution(payment: Pick<Payment, 'status'>): boolean {
  return payment.status === 'ACTC';
}

/**
 * The status a basket answers after execution: the least advanced of its payments' statuses, so a
 * TPP never reads a basket as settled while one of its payments waits for its date.
 */
export function basketStatus(statuses: readonly TransactionStatus[]): TransactionStatus {
  const order: readonly TransactionStatus[] = ['RJCT', 'CANC', 'ACTC', 'ACCP', 'ACSC', 'ACCC'];
  return order.find((status) => statuses.includes(status)) ?? 'ACTC';
}
