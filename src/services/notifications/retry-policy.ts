// When a failed delivery is tried again (issue 41, docs/notifications.md "Delivery and retries"): 10 s
// after the first attempt, doubling up to an hour, each wait spread by ±20 % so that the notifications
// of an endpoint that was down do not all come back at once; for 24 hours from the notification's
// creation, then it is abandoned.

const FIRST_WAIT_MS = 10_000;
const LONGEST_WAIT_MS = 3_600_000;
/** How long a notification is retried, from its creation. */
const RETRY_WINDOW_MS = 24 * 3_600_000;

/** What a receiver's answer, or the failure to get one, means for the notification. */
export type DeliveryVerdict = 'delivered' | 'retry' | 'abandon';

/** 2xx delivered; 408, 429 and 5xx tried again; any other answer (3xx are not followed, 4xx) abandons. */
export function verdictOf(statusCode: number): DeliveryVerdict {
  if (statusCode >= 200 && statusCode < 300) return 'delivered';
  if (statusCode === 408 || statusCode === 429 || statusCode >= 500) return 'retry';
  return 'abandon';
}

/** The wait after attempt `attempt` (from 1) failed; `random` in [0, 1). */
function retryDelayMs(attempt: number, random: number): number {
  const base = Math.min(LONGEST_WAIT_MS, FIRST_WAIT_MS * 2 ** Math.min(attempt - 1, 30));
  return Math.round(base * (0.8 + 0.4 * random));
}

/** When a failed attempt's notification is next tried, or undefined when its window has passed. */
export function nextAttemptAt(createdAt: Date, now: Date, attempt: number, random: number): Date | undefined {
  if (now.getTime() - createdAt.getTime() >= RETRY_WINDOW_MS) return undefined;
  return new Date(now.getTime() + retryDelayMs(attempt, random));
}
