// The permission dashboard's login at the bank's OpenID Connect provider (PSU_OIDC_*), in place of the
// built-in login: the browser leaves for the provider with a cookie that ties the login to it, and
// comes back to the dashboard's own callback (registered at the provider beside the redirect flow's).
// The state is taken once, by that browser only, within SESSION_IDLE_MS; the adapter checks the code
// and the ID token; the PSU it names, known to the PSU directory, gets a dashboard session.
import { hashSecret, newSecret } from '../../domain/secrets.ts';
import {
  insertDashboardLogin,
  purgeDashboardLogins,
  takeDashboardLogin,
} from '../../store/psu-sessions-repository.ts';
import type { ServiceContext } from '../shared/context.ts';
import type { CallbackQuery } from './provider-login.ts';
import { openPsuSession, SESSION_IDLE_MS } from './psu-sessions.ts';

export type DashboardReturn =
  | { readonly outcome: 'session'; readonly secret: string; readonly psuId: string }
  /** No login of this browser has that state (unknown, taken, another browser's). */
  | { readonly outcome: 'invalid' }
  /** The login failed: why, for the log only. */
  | { readonly outcome: 'failed'; readonly problem: string };

/** Where the browser goes to log in, and the secret of the cookie that ties the login to it. */
export async function beginDashboardProviderLogin(
  context: ServiceContext,
  returnUrl: string,
): Promise<{ readonly location: string; readonly browser: string } | undefined> {
  const provider = context.psuIdentityProvider;
  if (provider === undefined) return undefined;
  const begun = await provider.begin(returnUrl);
  const browser = newSecret();
  const now = context.clock();
  await purgeDashboardLogins(context.db, new Date(now.getTime() - SESSION_IDLE_MS));
  await insertDashboardLogin(context.db, {
    stateHash: hashSecret(begun.state),
    browserHash: hashSecret(browser),
    returnUrl,
    checks: begun.checks,
    createdAt: now,
  });
  return { location: begun.location, browser };
}

export async function completeDashboardProviderLogin(
  context: ServiceContext,
  query: CallbackQuery,
  browser: string | undefined,
): Promise<DashboardReturn> {
  const provider = context.psuIdentityProvider;
  const { state } = query;
  if (provider === undefined || typeof state !== 'string' || browser === undefined)
    return { outcome: 'invalid' };
  const login = await takeDashboardLogin(context.db, hashSecret(state), hashSecret(browser));
  if (login === undefined) return { outcome: 'invalid' };
  if (context.clock().getTime() - login.createdAt.getTime() > SESSION_IDLE_MS)
    return { outcome: 'failed', problem: 'the login at the provider took too long' };
  const parameters: Record<string, string> = {};
  for (const [name, value] of Object.entries(query)) if (typeof value === 'string') parameters[name] = value;
  const result = await provider.complete(login.returnUrl, parameters, { state, checks: login.checks });
  if (!result.ok) return { outcome: 'failed', problem: `${result.reason}: ${result.detail}` };
  if ((await context.psuDirectory.findPsu(result.psuId)) === undefined)
    return { outcome: 'failed', problem: "the provider's PSU is not in the PSU directory" };
  return { outcome: 'session', secret: await openPsuSession(context, result.psuId), psuId: result.psuId };
}
