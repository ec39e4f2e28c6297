// The payment as a state machine: transactionStatus changes only when the TPP executes or cancels it,
// or when a future-dated payment is booked on its date (API-NOTES "Statuses"). TRANSITIONS is every
// move there is; a status moves only by an event through nextStatus, and the database refuses any
// other move by a trigger generated from the same table (src/store/transition-rule.ts).
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
  /** The message to the payee (unstructured remittance information). */
  readonly remittance: string | null;
  /**
   * A booking asked of the core banking system and not yet answered: the order's idempotency key (the
   * payment's id, or its basket's) and when it was asked. Cleared when the outcome is recorded.
   */
  readonly booking: { readonly key: string; readonly startedAt: Date } | null;
}

/** What a status read needs of a payment: who may read it (app, PSU, basket) and what its answer says. */
export type PaymentStatusView = Pick<
  Payment,
  | 'id'
  | 'clientId'
  | 'product'
  | 'country'
  | 'psuId'
  | 'basketId'
  | 'status'
  | 'executedAt'
  | 'reasonCode'
  | 'reason'
  | 'debtorCurrency'
  | 'amount'
>;

/** Every move of transactionStatus there is: execution, booking on the date, rejection, cancellation. */
export const TRANSITIONS: Readonly<Record<TransactionStatus, readonly TransactionStatus[]>> = {
  ACTC: ['ACCP', 'ACSC', 'ACCC', 'RJCT', 'CANC'],
  ACCP: ['ACSC', 'ACCC', 'RJCT', 'CANC'],
  ACSC: [],
  ACCC: [],
  RJCT: [],
  CANC: [],
};

/** The status a payment starts in: the database refuses a payment stored in any other. */
export const INITIAL_STATUS: TransactionStatus = 'ACTC';

export function canMove(from: TransactionStatus, to: TransactionStatus): boolean {
  return TRANSITIONS[from].includes(to);
}

/**
 * What happens to a payment: the bank accepted its execution, or booked it on its date (`executed`:
 * `on` is the booking date, `settlement` the product's status once booked), accepted it to settle on a
 * later bank day (`accepted`: the sandbox's settlement scenarios), the bank rejected it, or the TPP
 * cancelled it.
 */
export type PaymentEvent =
  | { readonly type: 'executed'; readonly settlement: SettlementStatus; readonly on: string }
  | { readonly type: 'accepted' }
  | { readonly type: 'rejected' }
  | { readonly type: 'cancelled' };

/** A move the transition table does not have: a bug of the caller, answered as an internal error. */
export class TransitionRefused extends Error {
  readonly from: TransactionStatus;
  readonly to: TransactionStatus;

  constructor(paymentId: string, from: TransactionStatus, to: TransactionStatus) {
    super(`payment ${paymentId} cannot move from ${from} to ${to}`);
    this.name = 'TransitionRefused';
    this.from = from;
    this.to = to;
  }
}

/**
 * The status an event moves a payment to; throws TransitionRefused when TRANSITIONS has no such move.
 * An execution leaves a payment dated later waiting for its date (ACCP), else settled; a rejection
 * leads to RJCT and a cancellation to CANC, from any status that has that way out.
 */
export function nextStatus(
  payment: Pick<Payment, 'id' | 'status' | 'requestedExecutionDate'>,
  event: PaymentEvent,
): TransactionStatus {
  const to = targetOf(payment, event);
  if (!canMove(payment.status, to)) throw new TransitionRefused(payment.id, payment.status, to);
  return to;
}

function targetOf(payment: Pick<Payment, 'requestedExecutionDate'>, event: PaymentEvent): TransactionStatus {
  switch (event.type) {
    case 'executed':
      return statusAfterExecution(payment, event.settlement, event.on);
    case 'accepted':
      return 'ACCP';
    case 'rejected':
      return 'RJCT';
    case 'cancelled':
      return 'CANC';
  }
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
  return TRANSITIONS[status].length === 0;
}

/** A payment waits for execution only in ACTC; any other status is final or already executed. */
export function awaitsExecution(payment: Pick<Payment, 'status'>): boolean {
  return payment.status === 'ACTC';
}

/**
 * Whether the TPP may still cancel the payment (API-NOTES "Statuses": CANC, beyond the spec): not yet
 * executed, or executed with a later date and waiting for it, and no booking under way. A payment of
 * a basket is cancelled only with its basket (never: baskets have no cancellation).
 */
export function cancellable(
  payment: Pick<Payment, 'status' | 'requestedExecutionDate' | 'booking'>,
  today: string,
): boolean {
  if (payment.booking !== null) return false;
  if (payment.status === 'ACTC') return true;
  return (
    payment.status === 'ACCP' &&
    payment.requestedExecutionDate !== null &&
    payment.requestedExecutionDate > today
  );
}
