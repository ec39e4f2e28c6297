// What the live redirect flow's two logins share (our login page, psu-login.ts; the bank's OpenID
// Connect provider, provider-login.ts): the stored request, its idle expiry, its end at the TPP, and,
// once the PSU is known, the consent page that binds the approval to the payment as shown.
import { parseResourceScope } from '../../domain/scope.ts';
import { fingerprint, hashSecret } from '../../domain/secrets.ts';
import { type AuthRequestRow, advanceAuthRequest } from '../../store/psu-login-repository.ts';
import type { authRequests } from '../../store/schema.ts';
import type { ServiceContext } from '../shared/context.ts';
import type { AuthorizationRequest } from './codes.ts';
import { type PsuAnswer, redirectTo } from './psu-answer.ts';

/** An idle login or consent page expires after this long. */
const PAGE_IDLE_MS = 5 * 60_000;

export const INVALID_PAGE: PsuAnswer = {
  kind: 'page',
  status: 400,
  page: {
    view: 'message',
    title: 'This page is no longer valid',
    text: 'Go back to the app you came from and start again.',
  },
};

/** The fields a page's form posts back. */
export interface PageForm {
  readonly request: string;
  readonly csrf: string;
}

/** The stored form of a checked authorization request, in its login step. */
export function authRequestRow(
  request: AuthorizationRequest,
  hashes: { readonly requestHash: string; readonly csrfHash: string },
  now: Date,
): typeof authRequests.$inferInsert {
  return {
    ...hashes,
    clientId: request.app.clientId,
    redirectUri: request.redirectUri,
    scope: request.scope,
    state: request.state,
    codeChallenge: request.codeChallenge,
    resourceId: request.resource.id,
    status: 'login',
    createdAt: now,
    lastActivity: now,
  };
}

export function back(row: AuthRequestRow, parameters: Record<string, string>): PsuAnswer {
  return redirectTo(row.redirectUri, { ...parameters, state: row.state });
}

/** Ends a request; answers false when another submit ended it first. */
export function finish(context: ServiceContext, row: AuthRequestRow): Promise<boolean> {
  return advanceAuthRequest(context.db, row.requestHash, row.status, {
    status: 'done',
    lastActivity: context.clock(),
  });
}

/** A request idle too long ends at the TPP; undefined while it is not. */
export async function expiry(context: ServiceContext, row: AuthRequestRow): Promise<PsuAnswer | undefined> {
  if (context.clock().getTime() - row.lastActivity.getTime() <= PAGE_IDLE_MS) return undefined;
  await finish(context, row);
  return back(row, { error: 'access_denied', error_description: 'the authorization page expired' });
}

/**
 * The PSU is known: unless the resource can no longer be authorized or this PSU may not approve it
 * (both end at the TPP), the consent page. What it shows is kept (dynamic linking). A fresh form
 * (provider login: the PSU comes back from elsewhere) replaces the request id and CSRF token, and the
 * page sets the CSRF cookie.
 */
export async function consentStep(
  context: ServiceContext,
  row: AuthRequestRow,
  psu: { readonly psuId: string; readonly appName: string },
  form: PageForm,
  fresh: boolean,
): Promise<PsuAnswer> {
  const resource = await context.authorizables.find(parseResourceScope(row.scope)!);
  const refusal =
    (resource === undefined ? 'the payment is not awaiting authorization' : resource.refusal) ??
    (await resource!.psuRefusal(psu.psuId));
  if (refusal !== undefined) {
    await finish(context, row);
    return back(row, { error: 'access_denied', error_description: refusal });
  }
  const shown = await resource!.describe();
  const advanced = await advanceAuthRequest(context.db, row.requestHash, 'login', {
    status: 'consent',
    psuId: psu.psuId,
    shownPayment: fingerprint(shown.payments),
    lastActivity: context.clock(),
    ...(fresh ? { requestHash: hashSecret(form.request), csrfHash: hashSecret(form.csrf) } : {}),
  });
  if (!advanced) return INVALID_PAGE;
  return {
    kind: 'page',
    status: 200,
    page: { view: 'consent', appName: psu.appName, payments: shown.payments, access: shown.access },
    form,
    ...(fresh ? { setCsrfCookie: form.csrf } : {}),
  };
}
