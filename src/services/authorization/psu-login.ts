// The live redirect flow (issue 3): the PSU logs in on our page, sees what the TPP asks to do (amount,
// payee, debtor account, the TPP's app) and approves or denies. Forms carry a CSRF token that must
// match the cookie set with the first page; an idle request expires; the payment as shown is bound to
// the approval (dynamic linking): if it changed, approval fails.

import { parseResourceScope } from '../../domain/scope.ts';
import { constantEquals, fingerprint, hashSecret, newSecret } from '../../domain/secrets.ts';
import {
  type AuthRequestRow,
  advanceAuthRequest,
  findAuthRequest,
  insertAuthRequest,
  updateAuthRequest,
} from '../../store/psu-login-repository.ts';
import { appOf } from '../access/apps.ts';
import type { ServiceContext } from '../shared/context.ts';
import { type AuthorizationRequest, issueCode } from './codes.ts';
import { type PsuAnswer, redirectTo } from './psu-answer.ts';

/** An idle login or consent page expires after this long. */
export const PAGE_IDLE_MS = 5 * 60_000;

export interface PsuForm {
  readonly request?: string;
  readonly csrf?: string;
  readonly psu_id?: string;
  readonly password?: string;
  readonly decision?: string;
}

const INVALID_PAGE: PsuAnswer = {
  kind: 'page',
  status: 400,
  page: {
    view: 'message',
    title: 'This page is no longer valid',
    text: 'Go back to the app you came from and start again.',
  },
};

export async function startPsuLogin(
  context: ServiceContext,
  request: AuthorizationRequest,
): Promise<PsuAnswer> {
  const requestId = newSecret();
  const csrf = newSecret();
  const now = context.clock();
  await insertAuthRequest(context.db, {
    requestHash: hashSecret(requestId),
    csrfHash: hashSecret(csrf),
    clientId: request.app.clientId,
    redirectUri: request.redirectUri,
    scope: request.scope,
    state: request.state,
    codeChallenge: request.codeChallenge,
    resourceId: request.resource.id,
    status: 'login',
    createdAt: now,
    lastActivity: now,
  });
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

function back(row: AuthRequestRow, parameters: Record<string, string>): PsuAnswer {
  return redirectTo(row.redirectUri, { ...parameters, state: row.state });
}

/** Ends a request; answers false when another submit ended it first. */
function finish(context: ServiceContext, row: AuthRequestRow): Promise<boolean> {
  return advanceAuthRequest(context.db, row.requestHash, row.status, {
    status: 'done',
    lastActivity: context.clock(),
  });
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
  if (context.clock().getTime() - row.lastActivity.getTime() > PAGE_IDLE_MS) {
    await finish(context, row);
    return {
      answer: back(row, { error: 'access_denied', error_description: 'the authorization page expired' }),
    };
  }
  return { row };
}

export async function submitLogin(
  context: ServiceContext,
  form: PsuForm,
  cookie: string | undefined,
): Promise<PsuAnswer> {
  const opened = await openRequest(context, form, cookie, 'login');
  if ('answer' in opened) return opened.answer;
  const { row } = opened;
  const now = context.clock();
  const app = await appOf(context, row.clientId);
  const appName = app?.name ?? row.clientId;
  const fields = { request: form.request!, csrf: form.csrf! };
  const psuId = (form.psu_id ?? '').trim();
  const result = await context.psuDirectory.authenticate(psuId, form.password ?? '', now);
  if (!result.ok) {
    await updateAuthRequest(context.db, row.requestHash, { lastActivity: now });
    const error =
      result.reason === 'locked'
        ? 'Too many failed attempts. Your login is locked for a while; try again later.'
        : 'The PSU id or the password is wrong.';
    return { kind: 'page', status: 401, page: { view: 'login', appName, error, psuId }, form: fields };
  }
  const resource = await context.authorizables.find(parseResourceScope(row.scope)!);
  const refusal = resource === undefined ? 'the payment is not awaiting authorization' : resource.refusal;
  if (resource === undefined || refusal !== undefined) {
    await finish(context, row);
    return back(row, {
      error: 'access_denied',
      error_description: refusal ?? 'the payment is not awaiting authorization',
    });
  }
  const refusedPsu = await resource.psuRefusal(psuId);
  if (refusedPsu !== undefined) {
    await finish(context, row);
    return back(row, { error: 'access_denied', error_description: refusedPsu });
  }
  const shown = await resource.describe();
  const advanced = await advanceAuthRequest(context.db, row.requestHash, 'login', {
    status: 'consent',
    psuId,
    shownPayment: fingerprint(shown.payments),
    lastActivity: now,
  });
  if (!advanced) return INVALID_PAGE;
  return {
    kind: 'page',
    status: 200,
    page: { view: 'consent', appName, payments: shown.payments, access: shown.access },
    form: fields,
  };
}

export async function submitConsent(
  context: ServiceContext,
  form: PsuForm,
  cookie: string | undefined,
): Promise<PsuAnswer> {
  const opened = await openRequest(context, form, cookie, 'consent');
  if ('answer' in opened) return opened.answer;
  const { row } = opened;
  if (!(await finish(context, row))) return INVALID_PAGE;
  if (form.decision !== 'approve') {
    return back(row, { error: 'access_denied', error_description: 'the PSU denied the authorization' });
  }
  const resource = await context.authorizables.find(parseResourceScope(row.scope)!);
  const unchanged =
    resource !== undefined &&
    resource.refusal === undefined &&
    row.shownPayment !== null &&
    fingerprint((await resource.describe()).payments) === row.shownPayment;
  if (!unchanged || resource === undefined) {
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
    },
    row.psuId!,
  );
  return back(row, { code });
}
