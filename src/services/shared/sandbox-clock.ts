// The sandbox clock a TPP moves for its own app (POST /sandbox/clock): read, advanced in the database
// (so that every worker agrees), and on advancing, everything now due for the app is run in that
// request, on the app's new time. What is due is the composition root's to say (payments and consents
// are contexts of their own); each runs through the store's usual statements, audited and notified.
import type { App } from '../../domain/apps.ts';
import { apiError } from '../../domain/errors.ts';
import { formatOffset, MAX_OFFSET_MS } from '../../domain/sandbox-clock.ts';
import { advanceOffset, findAppWithClock } from '../../store/sandbox-clock-repository.ts';
import { onAppClock } from './app-clock.ts';
import type { ServiceContext } from './context.ts';

/** What GET and POST /sandbox/clock answer: the app's time now, and how far it is ahead. */
export interface AppClockView {
  readonly now: string;
  readonly offset: string;
}

/** Whatever has come due for an app: run with context.clock on the app's time. */
export type DueWork = (clientId: string) => Promise<unknown>;

function viewOf(context: ServiceContext, offsetMs: number): AppClockView {
  return {
    now: onAppClock(offsetMs, () => context.clock()).toISOString(),
    offset: formatOffset(offsetMs),
  };
}

/** The app's clock as the database holds it now (not as a worker may have cached it). */
export async function readAppClock(context: ServiceContext, app: App): Promise<AppClockView> {
  const fresh = await findAppWithClock(context.db, app.clientId);
  return viewOf(context, fresh?.clockOffsetMs ?? 0);
}

/**
 * Advances the app's clock by `ms` (checked by the caller against MAX_ADVANCE_MS), then runs `due` on
 * the new time. Refused (400) when the clock would be more than MAX_OFFSET_MS ahead of real time.
 */
export async function advanceAppClock(
  context: ServiceContext,
  app: App,
  ms: number,
  due: readonly DueWork[],
): Promise<AppClockView> {
  const offsetMs = await advanceOffset(context.db, app.clientId, ms, MAX_OFFSET_MS);
  if (offsetMs === undefined) {
    throw apiError(
      'FORMAT_ERROR',
      `advance: the sandbox clock may run at most ${formatOffset(MAX_OFFSET_MS)} ahead of real time (POST /sandbox/reset sets it back)`,
      'advance',
    );
  }
  // This worker's requests see the new time at once; the others' within their cache's lifetime.
  context.caches.apps.delete(app.clientId);
  await onAppClock(offsetMs, async () => {
    for (const work of due) await work(app.clientId);
  });
  return viewOf(context, offsetMs);
}
