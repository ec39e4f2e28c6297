// The live redirect flow's login at the bank's OpenID Connect provider (PSU_OIDC_*), in place of our
// login page. Authorize answers a redirect to our start link (single-use); the start link ties the
// login to the browser with a cookie and sends the browser to the provider; the provider sends it
// back to our callback. The callback takes a state we issued, from the browser that left with it,
// once, within the idle time; the adapter then checks the code and the ID token. The PSU it names
// goes on to the consent page as after our own login. Whatever fails before the request is known
// (a state we do not know, another browser, a replay) is the invalid page; afterwards the request
// ends at the TPP with an error, as the built-in login's do.
import { SYSTEM_TITLES, SystemUnavailable } from '../../domain/bank-systems.ts';
import { constantEquals, hashSecret, newSecret } from '../../domain/secrets.ts';
import {
  findProviderLogin,
  insertProviderLogin,
  markProviderLoginReturned,
  markProviderLoginSent,
} from '../../store/provider-logins-repository.ts';
import {
  type AuthRequestRow,
  findAuthRequest,
  insertAuthRequest,
  updateAuthRequest,
} from '../../store/psu-login-repository.ts';
import { appOf } from '../access/apps.ts';
import type { ServiceContext } from '../shared/context.ts';
import type { AuthorizationRequest } from './codes.ts';
import { authRequestRow, back, consentStep, expiry, finish, INVALID_PAGE } from './login-steps.ts';
import type { PsuAnswer } from './psu-answer.ts';

/** Our two pages of the round trip, under BASE_PATH. The callback is the one registered at the provider. */
export const PROVIDER_LOGIN_PATHS = { start: '/psu/oidc/start', callback: '/psu/oidc/callback' } as const;

/** What a step answers: the PSU's next page or redirect, and for the log why the login failed. */
export interface ProviderStep {
  readonly answer: PsuAnswer;
  /** The start step: the secret of the cookie that ties the login to this browser. */
  readonly browser?: string;
  readonly problem?: string;
}

export type CallbackQuery = Readonly<Record<string, string | string[] | undefined>>;

/** What a failed return tells the TPP. */
const FAILURES = {
  denied: { error: 'access_denied', error_description: 'the PSU did not log in' },
  invalid: { error: 'access_denied', error_description: 'the login at the bank could not be verified' },
  unavailable: { error: 'temporarily_unavailable', error_description: "the bank's login did not answer" },
} as const;

export async function startProviderLogin(
  context: ServiceContext,
  request: AuthorizationRequest,
): Promise<PsuAnswer> {
  const start = newSecret();
  const now = context.clock();
  // The request gets its id when the consent page hands one out: until then nobody holds it.
  const hashes = { requestHash: hashSecret(newSecret()), csrfHash: hashSecret(newSecret()) };
  await context.db.transaction(async (trx) => {
    await insertAuthRequest(trx, authRequestRow(request, hashes, now));
    await insertProviderLogin(trx, {
      startHash: hashSecret(start),
      requestHash: hashes.requestHash,
      createdAt: now,
    });
  });
  const query = new URLSearchParams({ login: start });
  return { kind: 'redirect', location: `${context.config.basePath}${PROVIDER_LOGIN_PATHS.start}?${query}` };
}

/** The start link: sends the browser to the provider, its answer to come back to returnUrl. */
export async function sendToProvider(
  context: ServiceContext,
  start: string | undefined,
  returnUrl: string,
): Promise<ProviderStep> {
  const provider = context.psuIdentityProvider;
  if (provider === undefined || start === undefined) return { answer: INVALID_PAGE };
  const login = await findProviderLogin(context.db, { startHash: hashSecret(start) });
  const row = login === undefined ? undefined : await findAuthRequest(context.db, login.requestHash);
  if (login?.status !== 'created' || row?.status !== 'login') return { answer: INVALID_PAGE };
  const expired = await expiry(context, row);
  if (expired !== undefined) return { answer: expired };
  const begun = await provider.begin(returnUrl);
  const browser = newSecret();
  const sent = await context.db.transaction(async (trx) => {
    const marked = await markProviderLoginSent(trx, login.startHash, {
      stateHash: hashSecret(begun.state),
      browserHash: hashSecret(browser),
      returnUrl,
      checks: begun.checks,
    });
    if (marked) await updateAuthRequest(trx, row.requestHash, { lastActivity: context.clock() });
    return marked;
  });
  if (!sent) return { answer: INVALID_PAGE };
  return { answer: { kind: 'redirect', location: begun.location }, browser };
}

/** The callback: what the provider sent back through the browser, with the browser's cookie. */
export async function returnFromProvider(
  context: ServiceContext,
  query: CallbackQuery,
  browser: string | undefined,
): Promise<ProviderStep> {
  const provider = context.psuIdentityProvider;
  const state = query.state;
  if (provider === undefined || typeof state !== 'string' || browser === undefined)
    return { answer: INVALID_PAGE };
  const login = await findProviderLogin(context.db, { stateHash: hashSecret(state) });
  // Another browser than the one that left (a stolen or planted callback URL) cannot use it.
  if (login?.status !== 'sent' || !constantEquals(hashSecret(browser), login.browserHash ?? ''))
    return { answer: INVALID_PAGE };
  const row = await findAuthRequest(context.db, login.requestHash);
  if (row?.status !== 'login' || !(await markProviderLoginReturned(context.db, login.startHash)))
    return { answer: INVALID_PAGE };
  const expired = await expiry(context, row);
  if (expired !== undefined) return { answer: expired };
  const parameters: Record<string, string> = {};
  for (const [name, value] of Object.entries(query)) if (typeof value === 'string') parameters[name] = value;
  const result = await provider.complete(login.returnUrl!, parameters, { state, checks: login.checks! });
  if (!result.ok) {
    await finish(context, row);
    return { answer: back(row, FAILURES[result.reason]), problem: result.detail };
  }
  try {
    return await consentOf(context, row, result.psuId);
  } catch (error) {
    // The provider's code is spent and the state taken: the login cannot be retried from here, and a
    // page telling the PSU to try again would lead nowhere. The TPP hears it and starts again.
    if (!(error instanceof SystemUnavailable)) throw error;
    await finish(context, row);
    return {
      answer: back(row, {
        error: 'temporarily_unavailable',
        error_description: `${SYSTEM_TITLES[error.system]} did not answer`,
      }),
      problem: `${error.system} cannot answer: ${error.message}`,
    };
  }
}

/** The PSU the provider named, known to the bank: the consent page (the bank's systems asked). */
async function consentOf(context: ServiceContext, row: AuthRequestRow, psuId: string): Promise<ProviderStep> {
  if ((await context.psuDirectory.findPsu(psuId)) === undefined) {
    await finish(context, row);
    return {
      // Said without saying whether the PSU is the bank's customer (issue 37).
      answer: back(row, { error: 'access_denied', error_description: 'the PSU cannot authorize this' }),
      problem: "the provider's PSU is not in the PSU directory",
    };
  }
  const appName = (await appOf(context, row.clientId))?.name ?? row.clientId;
  const form = { request: newSecret(), csrf: newSecret() };
  return { answer: await consentStep(context, row, { psuId, appName }, form, true) };
}
