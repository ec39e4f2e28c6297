// What the use cases tell the metrics (issue 17 item 5): events in the domain's words, told once the
// transaction that made them has committed (a change rolled back is not counted). Type-only: the
// Prometheus implementation is http/metrics.ts, chosen in app.ts; a context without one tells nothing.
import type { TransactionStatus } from '../../domain/payment.ts';

/** How the bank answered a payment's execution: booked now, accepted for its later date, or refused. */
export type ExecutionResult = 'booked' | 'scheduled' | 'rejected';

/** How a decoupled session ended. */
export type DecoupledResult =
  /** The PSU signed: the PSU token was issued. */
  | 'complete'
  /** The PSU cancelled in the e-ID app (USER_CANCEL). */
  | 'user_cancel'
  /** The PSU did not start or complete the identification in time (intent_expired). */
  | 'expired'
  /** The e-ID provider could not complete the identification (mbid_error). */
  | 'failed'
  /** Someone other than the PSU the session is for identified. */
  | 'other_person'
  /** The TPP polled too often (mbid_max_polling). */
  | 'polled_too_often'
  /** The TPP cancelled the session (live). */
  | 'cancelled';

/** The grant a token was issued under: the token endpoint's grant_type, or the decoupled flow. */
export type TokenGrantKind = 'client_credentials' | 'authorization_code' | 'refresh_token' | 'decoupled';

export interface ServiceMetrics {
  /** Payments that entered a status: ACTC when initiated, then each move (domain/payment.ts TRANSITIONS). */
  paymentStatus(product: string, status: TransactionStatus, count?: number): void;
  /** A payment whose booking the bank answered (or that waits for its date), by result. */
  paymentExecuted(result: ExecutionResult): void;
  /** A payment the bank refused, by its ISO 20022 reason code. */
  paymentRejected(reasonCode: string): void;
  decoupledSessionStarted(): void;
  decoupledSessionEnded(result: DecoupledResult): void;
  tokenIssued(grant: TokenGrantKind): void;
  /** A status notification's attempt: delivered, to be retried, or abandoned (issue 41). */
  notificationAttempt(result: NotificationResult): void;
}

/** What a notification's delivery attempt led to. */
export type NotificationResult = 'delivered' | 'retried' | 'abandoned';
