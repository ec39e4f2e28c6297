// A capability of a core banking system that keeps its ledger in the gateway's own database (the
// built-in one): it books an execution and records it in one transaction. It is no part of the bank's
// port (ports/core-banking.ts), since it speaks of the gateway's record of the execution; the
// composition root (app.ts) wires it into the context only when the built-in ledger is the core
// banking system, and services/payments/booking.ts takes it when it is there.
import type { BookingOrder, BookingOutcome } from '../../ports/core-banking.ts';
import type { ExecutionRecord } from '../../store/ledger/execution.ts';

/** The outcome of a recorded booking, and whether the answer was kept (false: rejected, or the claim of its Idempotency-Key was lost). */
export type RecordedBooking = BookingOutcome & { readonly answered: boolean };

export interface RecordedBookings {
  /**
   * Books an order of one payment and records the execution with it, in one transaction: the payment
   * moved (to `record.to`, or RJCT with the reason) and, when booked, the answer kept under its
   * Idempotency-Key's claim, if any. The three steps of services/payments/booking.ts, each surviving a crash, are then one. Answers
   * undefined, having done nothing, when the payment is no longer waiting in `record.from` or is marked
   * for a booking asked before: the caller takes the three steps.
   */
  bookRecorded(order: BookingOrder, record: ExecutionRecord): Promise<RecordedBooking | undefined>;
}
