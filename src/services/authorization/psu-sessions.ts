// The PSU's permission dashboard session (issue 39): the PSU logs in as on the authorization pages
// (the same password check, throttle and lock: login-throttle.ts), and the browser then holds a
// session cookie whose secret is stored only as its hash. A session ends after SESSION_IDLE_MS without
// a request (PSD2 RTS art. 4(3)(d): at most 5 minutes of inactivity) or at logout. The forms of the
// dashboard carry a CSRF token derived from the session's secret, which only the browser holding the
// HttpOnly cookie can show: no second secret to store, and a token that dies with its session.
import { constantEquals, hashSecret, newSecret } from '../../domain/secrets.ts';
import {
  deletePsuSession,
  insertPsuSession,
  purgePsuSessions,
  touchPsuSession,
} from '../../store/psu-sessions-repository.ts';
import type { ServiceContext } from '../shared/context.ts';
import { checkLogin } from './login-throttle.ts';

/** A session ends after this long without a request. */
export const SESSION_IDLE_MS = 5 * 60_000;

export interface DashboardLoginForm {
  readonly csrf?: string;
  readonly psu_id?: string;
  readonly password?: string;
}

export type DashboardLogin =
  | { readonly outcome: 'session'; readonly secret: string }
  /** The login form's CSRF token does not match its cookie. */
  | { readonly outcome: 'invalid' }
  | { readonly outcome: 'wrong' | 'locked'; readonly psuId: string };

/**
 * The login form: its CSRF token must match the psu_csrf cookie the login page set. Where the bank's
 * OpenID Connect provider is configured, PSUs log in there only (dashboard-provider-login.ts).
 */
export async function logInToDashboard(
  context: ServiceContext,
  form: DashboardLoginForm,
  csrfCookie: string | undefined,
  address: string,
): Promise<DashboardLogin> {
  if (context.psuIdentityProvider !== undefined) return { outcome: 'invalid' };
  if (form.csrf === undefined || csrfCookie === undefined || !constantEquals(form.csrf, csrfCookie))
    return { outcome: 'invalid' };
  const psuId = (form.psu_id ?? '').trim();
  const outcome = await checkLogin(context, { psuId, password: form.password ?? '', address });
  if (outcome !== 'ok') return { outcome, psuId };
  return { outcome: 'session', secret: await openPsuSession(context, psuId) };
}

/** A new session of the PSU, whichever login found who it is: the secret of its cookie. */
export async function openPsuSession(context: ServiceContext, psuId: string): Promise<string> {
  const secret = newSecret();
  const now = context.clock();
  await purgePsuSessions(context.db, new Date(now.getTime() - SESSION_IDLE_MS));
  await insertPsuSession(context.db, {
    sessionHash: hashSecret(secret),
    psuId,
    createdAt: now,
    lastActivity: now,
  });
  return secret;
}

/** The PSU of an active session (its idle time starts again), or undefined. */
export async function psuOfSession(
  context: ServiceContext,
  secret: string | undefined,
): Promise<string | undefined> {
  if (secret === undefined || secret === '') return undefined;
  const now = context.clock();
  const row = await touchPsuSession(
    context.db,
    hashSecret(secret),
    new Date(now.getTime() - SESSION_IDLE_MS),
    now,
  );
  return row?.psuId;
}

/** The CSRF token of a session's forms. */
export function csrfOfSession(secret: string): string {
  return hashSecret(`csrf:${secret}`);
}

/** The PSU of an active session whose form carries the session's CSRF token, or undefined. */
export async function psuOfForm(
  context: ServiceContext,
  secret: string | undefined,
  csrf: string | undefined,
): Promise<string | undefined> {
  if (secret === undefined || csrf === undefined || !constantEquals(csrf, csrfOfSession(secret)))
    return undefined;
  return psuOfSession(context, secret);
}

export async function logOutOfDashboard(context: ServiceContext, secret: string | undefined): Promise<void> {
  if (secret !== undefined) await deletePsuSession(context.db, hashSecret(secret));
}
