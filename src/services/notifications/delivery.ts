// The delivery loop every gateway process runs (issue 41): every NOTIFICATION_POLL_MS it claims the
// due notifications (store/notifications/outbox.ts: one process at a time per notification, at most
// NOTIFICATION_IN_FLIGHT_PER_APP in flight per app across all), sends each (sending.ts) and records
// the attempt. Started and stopped with the app, like the audit sealer.
import type { Clock } from '../../domain/clock.ts';
import { every } from '../../domain/periodic.ts';
import type { Db } from '../../store/database.ts';
import { type ClaimedNotification, claimDue, recordAttempt } from '../../store/notifications/outbox.ts';
import type { NotificationResult } from '../shared/metrics.ts';
import { nextAttemptAt, verdictOf } from './retry-policy.ts';
import { type SendResult, type SignDelivery, send } from './sending.ts';

export interface DeliveryOptions {
  readonly clock: Clock;
  readonly pollMs: number;
  readonly timeoutMs: number;
  readonly inFlightPerApp: number;
  /** Loopback receivers allowed (the sandbox's policy). */
  readonly loopback: boolean;
  readonly sign: SignDelivery;
  readonly count: (result: NotificationResult) => void;
  readonly onError: (error: unknown) => void;
  /** Tests: the jitter's source; Math.random by default. */
  readonly random?: () => number;
}

/** The most deliveries one process has in flight, whatever the apps. */
const PROCESS_IN_FLIGHT = 64;

/** How long the stop waits for the deliveries under way. */
const STOP_WAIT_MS = 2_000;

/** Starts delivering; answers the stop. */
export function startDelivery(db: Db, options: DeliveryOptions): () => Promise<void> {
  const inFlight = new Set<Promise<void>>();
  // A lease outlives the attempt: another process takes the notification again only when this one died.
  const leaseMs = options.timeoutMs * 2 + 5_000;
  const tick = async () => {
    const room = PROCESS_IN_FLIGHT - inFlight.size;
    if (room <= 0) return;
    const now = options.clock();
    const claimed = await claimDue(db, {
      now,
      leaseUntil: new Date(now.getTime() + leaseMs),
      perApp: options.inFlightPerApp,
      limit: room,
    });
    for (const notification of claimed) {
      const delivery = deliver(db, notification, options)
        .catch(options.onError)
        .finally(() => inFlight.delete(delivery));
      inFlight.add(delivery);
    }
  };
  return every(tick, {
    intervalMs: options.pollMs,
    stopWaitMs: STOP_WAIT_MS,
    onError: options.onError,
    // The stop waits for the deliveries under way too: their attempts are recorded.
    pending: () => inFlight,
  });
}

/** One attempt of one notification, recorded with what it leaves the notification in. */
async function deliver(db: Db, notification: ClaimedNotification, options: DeliveryOptions): Promise<void> {
  const started = performance.now();
  const at = options.clock();
  const result: SendResult = await send(notification.uri, notification.body, {
    timeoutMs: options.timeoutMs,
    loopback: options.loopback,
    sign: options.sign,
  });
  const durationMs = performance.now() - started;
  const verdict = 'statusCode' in result ? verdictOf(result.statusCode) : result.retry ? 'retry' : 'abandon';
  const next =
    verdict === 'retry'
      ? nextAttemptAt(
          notification.createdAt,
          options.clock(),
          notification.attempt,
          (options.random ?? Math.random)(),
        )
      : undefined;
  const outcome =
    verdict === 'delivered'
      ? ({ state: 'delivered' } as const)
      : next === undefined
        ? ({ state: 'abandoned' } as const)
        : ({ state: 'pending', nextAttemptAt: next } as const);
  await recordAttempt(db, {
    notificationId: notification.notificationId,
    attempt: notification.attempt,
    at,
    statusCode: 'statusCode' in result ? result.statusCode : undefined,
    error: 'error' in result ? result.error : undefined,
    durationMs,
    outcome,
  });
  options.count(outcome.state === 'pending' ? 'retried' : outcome.state);
}
