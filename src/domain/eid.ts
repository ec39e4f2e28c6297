// The Swedish mobile e-ID as the decoupled flow sees it (API-NOTES "Decoupled"): the animated QR
// code, the order states and hint codes, and what each means for the TPP polling the token URL.
import { createHmac } from 'node:crypto';

/** Minimum wait between the TPP's token polls, in milliseconds (spec: sandbox value 2000). */
export const SLEEP_TIME_MS = 2000;
/** An order the PSU has not started within this time fails. */
const START_WINDOW_MS = 30_000;
/** An order fails this long after it was created, started or not. */
const ORDER_LIFETIME_MS = 180_000;
/** Polls sooner than sleep_time that a session tolerates before ending it (mbid_max_polling). */
export const MAX_EARLY_POLLS = 5;
/** Polls a session tolerates in all: its lifetime at the allowed pace, and some slack. */
export const MAX_POLLS = Math.ceil(ORDER_LIFETIME_MS / SLEEP_TIME_MS) + 10;

export type PendingHint = 'outstandingTransaction' | 'noClient' | 'started' | 'userSign';
export type FailedHint = 'expiredTransaction' | 'userCancel' | 'certificateErr' | 'startFailed';

export type OrderState =
  | { readonly status: 'pending'; readonly hintCode: PendingHint }
  | { readonly status: 'failed'; readonly hintCode: FailedHint }
  | { readonly status: 'complete'; readonly personalNumber: string };

/** What the TPP's token poll answers for an order state. */
export type PollOutcome =
  | { readonly kind: 'result'; readonly result: 'IN_PROGRESS' | 'USER_CANCEL' }
  | { readonly kind: 'complete' }
  | { readonly kind: 'error'; readonly error: 'intent_expired' | 'mbid_error'; readonly description: string };

export function pollOutcome(state: OrderState): PollOutcome {
  if (state.status === 'pending') return { kind: 'result', result: 'IN_PROGRESS' };
  if (state.status === 'complete') return { kind: 'complete' };
  switch (state.hintCode) {
    case 'userCancel':
      return { kind: 'result', result: 'USER_CANCEL' };
    case 'expiredTransaction':
      return {
        kind: 'error',
        error: 'intent_expired',
        description: 'the PSU did not complete the identification in time',
      };
    case 'startFailed':
      return {
        kind: 'error',
        error: 'intent_expired',
        description: 'the PSU did not start the e-ID app in time',
      };
    default:
      return {
        kind: 'error',
        error: 'mbid_error',
        description: 'the e-ID provider could not complete the identification',
      };
  }
}

/**
 * The animated QR code: bankid.<qrStartToken>.<seconds since the order started>.<hex HMAC-SHA256 of
 * the seconds, keyed by qrStartSecret>. The secret stays on the server.
 */
export function animatedQrCode(qrStartToken: string, qrStartSecret: string, seconds: number): string {
  const hmac = createHmac('sha256', qrStartSecret).update(String(seconds)).digest('hex');
  return `bankid.${qrStartToken}.${seconds}.${hmac}`;
}

/** The link that starts the e-ID app on the same device. */
export function autoStartLink(autoStartToken: string): string {
  return `bankid:///?autostarttoken=${autoStartToken}&redirect=null`;
}

/** The state of an order at `now`, given its stored state and times (expiry rules of the provider). */
export function orderStateAt(
  stored: OrderState,
  createdAt: number,
  startedAt: number | null,
  now: number,
): OrderState {
  if (stored.status !== 'pending') return stored;
  if (now - createdAt >= ORDER_LIFETIME_MS) return { status: 'failed', hintCode: 'expiredTransaction' };
  if (startedAt === null && now - createdAt >= START_WINDOW_MS)
    return { status: 'failed', hintCode: 'startFailed' };
  return stored;
}
