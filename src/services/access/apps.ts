// The registered apps, as every API call needs them.
import type { App } from '../../domain/apps.ts';
import { findApp } from '../../store/apps-repository.ts';
import { findAppWithClock } from '../../store/sandbox-clock-repository.ts';
import type { ServiceContext } from '../shared/context.ts';

/**
 * The app of a client id; recently seen apps come from memory (apps change only through onboarding; a
 * sandbox app's clock, read with it, moves only by POST /sandbox/clock, which forgets it here).
 */
export async function appOf(context: ServiceContext, clientId: string): Promise<App | undefined> {
  const cached = context.caches.apps.get(clientId);
  if (cached !== undefined) return cached;
  const app = context.policy.sandboxTools
    ? await findAppWithClock(context.db, clientId)
    : await findApp(context.db, clientId);
  if (app !== undefined) context.caches.apps.set(clientId, app);
  return app;
}
