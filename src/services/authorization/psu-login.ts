// The live redirect flow (issue 3): the PSU logs in on our page, sees what the TPP asks to do (amount,
// payee, debtor account, the TPP's app) and approves or denies. Forms carry a CSRF token that must
// match the cookie set with the first page; an idle request expires; the payment as shown is bound to
// the approval (dynamic linking): if it changed, approval fails. Where the bank's OpenID Connect
// provider is configured (PSU_OIDC_*), the PSU logs in there instead (provider-login.ts); the consent
// page is the same.

import type { AuditActor } from '../../domain/audit.ts';
import { parseResourceScope } from '../../domain/scope.ts';
import { constantEquals, fingerprint, hashSecret, newSecret } from '../../domain/secrets.ts';
import {
  type AuthRequestRow,
  findAuthRequest,
  insertAuthRequest,
  updateAuthRequest,
} from '../../store/psu-login-repository.ts';
import { appOf } from '../access/apps.ts';
import type { ServiceContext } from '../shared/context.ts';
import { type AuthorizationRequest, issueCode, recordAuthorizationRefused } from './codes.ts';
import { authRequestRow, back, consentStep, expiry, finish, INVALID_PAGE } from './login-steps.ts';
import { checkLogin } from './login-throttle.ts';
import { startProviderLogin } from './provider-login.ts';
import type { PsuAnswer } from './psu-answer.ts';

export interface PsuForm {
  readonly request?: string;
  readonly csrf?: string;
  readonly psu_id?: string;
  readonly password?: string;
  readonly decision?: string;
}

/** Our login page; where the bank's OpenID Connect provider is configured, a round trip there instead. */
export async function startPsuLogin(
  context: ServiceContext,
  request: AuthorizationRequest,
): Promise<PsuAnswer> {
  if (context.psuIdentityProvider !== undefined) return startProviderLogin(context, request);
  const requestId = newSecret();
  const csrf = newSecret();
  const now = context.clock();
  await insertAuthRequest(
    context.db,
    authRequestRow(request, { requestHash: hashSecret(requestId), csrfHash: hashSecret(csrf) }, now),
  );
  return {
    kind: 'page',
    status: 200,
    page: { view: 'login', appName: request.app.name },
    form: { request: requestId, csrf },
    setCsrfCookie: csrf,
  };
}

/** The request a form belongs to, when its CSRF token matches the cookie and the stored one. */
async function requestOfForm(context: ServiceContext, form: PsuForm, cookie: string | undefined) {
  if (form.request === undefined || form.csrf === undefined || cookie === undefined) return undefined;
  if (!constantEquals(form.csrf, cookie)) return undefined;
  const row = await findAuthRequest(context.db, hashSecret(form.request));
  if (row === undefined || !constantEquals(hashSecret(form.csrf), row.csrfHash)) return undefined;
  return row;
}

/** Common checks of a posted page: a valid form, the expected step, not idle too long. */
async function openRequest(
  context: ServiceContext,
  form: PsuForm,
  cookie: string | undefined,
  step: 'login' | 'consent',
): Promise<{ row: AuthRequestRow } | { answer: PsuAnswer }> {
  const row = await requestOfForm(context, form, cookie);
  if (row === undefined || row.status !== step) return { answer: INVALID_PAGE };
  const expired = await expiry(context, row);
  return expired === undefined ? { row } : { answer: expired };
}

/**
 * A wrong password answers the same page for any PSU id, known to the bank or not, and without the id
 * typed: after MAX_FAILURES_PER_ADDRESS failures from one address, the same "locked" page for any id.
 */
export async function submitLogin(
  context: ServiceContext,
  form: PsuForm,
  cookie: string | undefined,
  address: string,
): Promise<PsuAnswer> {
  const opened = await openRequest(context, form, cookie, 'login');
  if ('answer' in opened) return opened.answer;
  const { row } = opened;
  const now = context.clock();
  const app = await appOf(context, row.clientId);
  const appName = app?.name ?? row.clientId;
  const fields = { request: form.request!, csrf: form.csrf! };
  const psuId = (form.psu_id ?? '').trim();
  const outcome = await checkLogin(context, { psuId, password: form.password ?? '', address });
  if (outcome !== 'ok') {
    await updateAuthRequest(context.db, row.requestHash, { lastActivity: now });
    const error =
      outcome === 'locked'
        ? 'Too many failed attempts. Your login is locked for a while; try again later.'
        : 'The PSU id or the password is wrong.';
    return { kind: 'page', status: 401, page: { view: 'login', appName, error }, form: fields };
  }
  return consentStep(context, row, { psuId, appName }, fields, false);
}

export async function submitConsent(
  context: ServiceContext,
  form: PsuForm,
  cookie: string | undefined,
  actor?: AuditActor,
): Promise<PsuAnswer> {
  const opened = await openRequest(context, form, cookie, 'consent');
  if ('answer' in opened) return opened.answer;
  const { row } = opened;
  const audited = { app: { clientId: row.clientId }, scope: row.scope, actor };
  if (form.decision !== 'approve') {
    if (!(await finish(context, row))) return INVALID_PAGE;
    await recordAuthorizationRefused(
      context,
      audited,
      'denied',
      row.psuId,
      'the PSU denied the authorization',
    );
    return back(row, { error: 'access_denied', error_description: 'the PSU denied the authorization' });
  }
  // The bank's systems first: while one cannot answer (SystemUnavailable, a 503 page) the request stays
  // open, for the PSU to approve again once it is back. Then ended, once, by whichever submit is first.
  const resource = await context.authorizables.find(parseResourceScope(row.scope)!);
  const unchanged =
    resource !== undefined &&
    resource.refusal === undefined &&
    row.shownPayment !== null &&
    fingerprint((await resource.describe()).payments) === row.shownPayment;
  if (!(await finish(context, row))) return INVALID_PAGE;
  if (!unchanged || resource === undefined) {
    await recordAuthorizationRefused(
      context,
      audited,
      'refused',
      row.psuId,
      'the payment changed after the PSU saw it',
    );
    return back(row, {
      error: 'access_denied',
      error_description: 'the payment changed after the PSU saw it',
    });
  }
  const app = await appOf(context, row.clientId);
  if (app === undefined) return INVALID_PAGE;
  await resource.approve(context.db, row.psuId!);
  const code = await issueCode(
    context,
    {
      app,
      redirectUri: row.redirectUri,
      state: row.state,
      scope: row.scope,
      resource,
      codeChallenge: row.codeChallenge,
      actor: { ...actor, psuId: row.psuId },
    },
    row.psuId!,
  );
  return back(row, { code });
}
