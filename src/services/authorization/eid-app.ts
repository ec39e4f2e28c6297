// The pretend mobile e-ID app of the built-in simulator (/psu/eid): the PSU opens the order by
// personal number, auto-start token or QR code, then identifies with the personal number and password
// of the PSU directory; only the PSU the order is for, once identified, sees what it signs (amount,
// payee) and signs or cancels it: a personal number, a QR code or an auto-start token says nothing of
// who holds it. The identification hands out a ticket (kept as its hash) that the sign form carries.
// Forms carry a CSRF token that must match the psu_csrf cookie. It stands in for the PSU's phone, so it
// exists only with the simulator, never with a real provider.
import { constantEquals, hashSecret, newSecret } from '../../domain/secrets.ts';
import type { ServiceContext } from '../shared/context.ts';
import type { SimulatedEidApp, SimulatedOrder } from '../shared/simulated-eid-app.ts';
import { checkLogin } from './login-throttle.ts';
import type { EidView, PsuAnswer } from './psu-answer.ts';

/** What the app's forms post: the order (the form's request), the CSRF token, and the decision. */
export interface EidForm {
  readonly request?: string;
  readonly csrf?: string;
  readonly input?: string;
  readonly psu_id?: string;
  readonly password?: string;
  readonly decision?: string;
}

const WRONG = 'The personal number or the password is wrong. Nothing was signed.';
const LOCKED = 'Too many failed attempts: your login is locked for a while. Nothing was signed.';
const NOT_YOURS = 'This identification is for another person: you cannot sign or cancel it.';
const CSRF_TOKEN = /^[A-Za-z0-9_-]{43}$/;

/** The simulator's app; the routes exist only where the context has one (the simulator is the provider). */
function appOf(context: ServiceContext): SimulatedEidApp {
  if (context.simulatedEid === undefined) throw new Error('the e-ID provider is no simulator');
  return context.simulatedEid;
}

function page(
  context: ServiceContext,
  status: number,
  view: EidView,
  form?: { request: string; csrf: string },
): Extract<PsuAnswer, { kind: 'page' }> {
  return {
    kind: 'page',
    status,
    page: { ...view, mode: context.config.mode },
    ...(form === undefined ? {} : { form }),
  };
}

/** Double-submit: the form's token must be the cookie's (SameSite=Strict: another site sends neither). */
function csrfMatches(form: EidForm, cookie: string | undefined): form is EidForm & { csrf: string } {
  return form.csrf !== undefined && cookie !== undefined && constantEquals(form.csrf, cookie);
}

const invalidPage = (context: ServiceContext) =>
  page(context, 400, {
    view: 'eid-message',
    title: 'This page is no longer valid',
    text: 'Open the identification again.',
  });

/** What a form step does once its CSRF token matched: with the app and the time. */
type FormStep = (
  context: ServiceContext,
  form: EidForm & { csrf: string },
  app: SimulatedEidApp,
  now: Date,
  address: string,
) => Promise<PsuAnswer>;

/** A step of the app's forms: a form whose CSRF token does not match the cookie is no longer valid. */
function formStep(step: FormStep) {
  return (
    context: ServiceContext,
    form: EidForm,
    cookie: string | undefined,
    address: string,
  ): Promise<PsuAnswer> =>
    csrfMatches(form, cookie)
      ? step(context, form, appOf(context), context.clock(), address)
      : Promise.resolve(invalidPage(context));
}

/**
 * The first page, with the CSRF token of the app's forms: the cookie's, when the browser has one
 * (a login page open in another tab keeps working), else a new one that the answer sets.
 */
export function eidStart(context: ServiceContext, cookie: string | undefined): PsuAnswer {
  const reuse = cookie !== undefined && CSRF_TOKEN.test(cookie);
  const csrf = reuse ? cookie : newSecret();
  const answer = page(context, 200, { view: 'eid-start' }, { request: '', csrf });
  return reuse ? answer : { ...answer, setCsrfCookie: csrf };
}

export const eidOpen = formStep(async function openOrder(context, form, app, now) {
  const order = await app.find(form.input ?? '', now);
  if (order === undefined || !(await app.open(order.orderRef, now))) {
    return page(
      context,
      404,
      { view: 'eid-start', error: 'No identification is waiting for that personal number or code.' },
      { request: '', csrf: form.csrf },
    );
  }
  return identifyPage(context, order, form.csrf, 200);
});

/** Asks who the PSU is; shows nothing of the order. */
function identifyPage(
  context: ServiceContext,
  order: SimulatedOrder,
  csrf: string,
  status: number,
  failed?: { error: string; psuId?: string },
): PsuAnswer {
  return page(context, status, { view: 'eid-identify', ...failed }, { request: order.orderRef, csrf });
}

/** Identifies the PSU; only the PSU the order is for then sees it, with the ticket that signs it. */
export const eidIdentify = formStep(async function identifyPsu(context, form, app, now, address) {
  const order = form.request === undefined ? undefined : await app.pending(form.request, now);
  if (order === undefined) return ended(context);
  const psuId = (form.psu_id ?? '').trim();
  // Credentials first, whoever the order is for: a stranger learns nothing of whose order it is.
  const identified = await checkLogin(context, { psuId, password: form.password ?? '', address });
  if (identified !== 'ok') {
    const error = identified === 'locked' ? LOCKED : WRONG;
    return identifyPage(context, order, form.csrf, 401, { error });
  }
  if (psuId !== order.personalNumber)
    return identifyPage(context, order, form.csrf, 403, { error: NOT_YOURS, psuId });
  const ticket = newSecret();
  if (!(await app.identified(order.orderRef, hashSecret(ticket), now))) return ended(context);
  return page(
    context,
    200,
    { view: 'eid-order', text: order.visibleText },
    { request: ticket, csrf: form.csrf },
  );
});

/** Signs or cancels the order of the ticket that the PSU's identification handed out. */
export const eidSign = formStep(async function signOrder(context, form, app, now) {
  const order =
    form.request === undefined || form.request === ''
      ? undefined
      : await app.signable(hashSecret(form.request), now);
  if (order === undefined) return ended(context);
  const approve = form.decision === 'approve';
  const done = approve ? await app.approve(order.orderRef, now) : await app.decline(order.orderRef, now);
  if (!done) return ended(context);
  return page(context, 200, {
    view: 'eid-message',
    title: approve ? 'Signed' : 'Cancelled',
    text: approve ? 'You can return to the app you came from.' : 'Nothing was signed.',
  });
});

const ended = (context: ServiceContext) =>
  page(context, 400, {
    view: 'eid-message',
    title: 'Nothing to sign',
    text: 'This identification has ended.',
  });
