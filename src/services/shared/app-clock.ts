// The sandbox clock of the app a request is for: real time plus the app's offset (POST /sandbox/clock).
// The offset comes with the app (services/access/apps.ts reads it with the app, cached with it), and the
// request's handler runs inside it (api/shared/pipeline.ts), so every use case it calls reads the app's
// time from context.clock without an argument more. Outside a request, and for apps whose clock never
// moved, context.clock is real time. Live never reads offsets (docs/decisions.md, "Issue 41: a sandbox
// that takes time").
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Clock } from '../../domain/clock.ts';
import type { Db } from '../../store/database.ts';
import { clockOffsetOf } from '../../store/sandbox-clock-repository.ts';
import type { ServiceContext } from './context.ts';

const offsets = new AsyncLocalStorage<number>();

/** A clock that is `base` shifted by the offset of the app whose request runs now (none: `base`). */
export function appClock(base: Clock): Clock {
  return () => {
    const offset = offsets.getStore();
    return offset === undefined ? base() : new Date(base().getTime() + offset);
  };
}

/** Runs `work` on the clock of an app `offsetMs` ahead of real time (0: as it is, at no cost). */
export function onAppClock<T>(offsetMs: number, work: () => T): T {
  return offsetMs === 0 ? work() : offsets.run(offsetMs, work);
}

/**
 * The time now on an app's clock, for what the app's own requests do not run (the PSU approving on the
 * authorization pages), read in `db` (the caller's transaction); live: real time, no offset read.
 */
export async function timeOfApp(context: ServiceContext, db: Db, clientId: string): Promise<Date> {
  if (!context.policy.sandboxTools) return context.clock();
  return onAppClock(await clockOffsetOf(db, clientId), context.clock);
}
