// The PSU's permission dashboard (issue 39): log in as on the authorization pages, see the consents
// given to TPPs and the future-dated payments, withdraw or cancel. Each change is a POST form with the
// session's CSRF token, answered by a redirect back to the dashboard (so a reload repeats nothing).
// The session cookie is HttpOnly, SameSite=Strict and sent only to the dashboard's paths.
import { normalizeIP } from '@fastify/rate-limit';
import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { newSecret } from '../../domain/secrets.ts';
import { auditActorOf } from '../../http/audit-actor.ts';
import { withdrawConsentByPsu } from '../../services/account-information/psu-consents.ts';
import { beginDashboardProviderLogin } from '../../services/authorization/dashboard-provider-login.ts';
import {
  logInToDashboard,
  logOutOfDashboard,
  psuOfForm,
  psuOfSession,
} from '../../services/authorization/psu-sessions.ts';
import { cancelPaymentByPsu } from '../../services/payments/psu-payments.ts';
import type { ServiceContext } from '../../services/shared/context.ts';
import { baseUrlOf } from '../base-url.ts';
import { HTML_PAGE, REDIRECT } from '../oauth/answers.ts';
import type { Api } from '../shared/api.ts';
import type { Pipelines } from '../shared/pipeline.ts';
import { apiErrors } from '../shared/schemas.ts';
import { DASHBOARD_CALLBACK_PATH, setBrowserCookie } from './dashboard-oidc-routes.ts';
import { DASHBOARD_PATH, loginPage, type Notice } from './dashboard-page.ts';
import { SESSION_COOKIE, sendDashboard, sendMessage, setSessionCookie } from './dashboard-reply.ts';
import { FORM, pageErrors } from './psu-routes.ts';
import {
  CSRF_COOKIE,
  cookieOf,
  type DatabaseUnavailable,
  noStore,
  psuPageErrors,
  sendHtml,
  setCsrfCookie,
} from './reply.ts';

const TAGS = ['PSU pages'];
const field = (description: string) => Type.Optional(Type.String({ description }));
const CSRF_FIELD = field("The CSRF token of the dashboard's page");
const INVALID = 'The page is no longer valid (logged out, idle too long, or a bad CSRF token)';
const BACK = REDIRECT('Back to the dashboard, which says what was done');

export function dashboardRoutes(
  app: Api,
  context: ServiceContext,
  { route, limits }: Pipelines,
  unavailable?: DatabaseUnavailable,
): void {
  const { config } = context;
  const base = config.basePath;
  const errorHandler = psuPageErrors(config, unavailable);
  const back = (reply: FastifyReply, notice?: Notice) =>
    reply.redirect(`${base}${DASHBOARD_PATH}${notice === undefined ? '' : `?notice=${notice}`}`, 302);
  const invalid = (reply: FastifyReply) =>
    sendMessage(reply, base, 400, 'This page is no longer valid', 'Open your permissions again and log in.');
  /**
   * The PSU of a posted form's session, when the form carries the session's CSRF token: with the
   * browser's address and the request's correlation id, for the audit records of what the PSU changes.
   */
  const actor = async (request: FastifyRequest, reply: FastifyReply, csrf: string | undefined) => {
    noStore(config, request, reply);
    const psuId = await psuOfForm(context, cookieOf(request, SESSION_COOKIE), csrf);
    if (psuId === undefined) return undefined;
    const { address, correlationId } = auditActorOf(request);
    return { psuId, address: address ?? undefined, correlationId: correlationId ?? undefined };
  };
  const unknown = (reply: FastifyReply) =>
    sendMessage(reply, base, 404, 'Not found', 'Nothing of yours has that id.');

  app.get(
    DASHBOARD_PATH,
    route({
      schema: {
        summary: "The PSU's permission dashboard (HTML)",
        description:
          "With an active psu_session cookie: the consents the PSU gave to TPPs and the future-dated payments waiting for their date. Without one: the login form (sets the psu_csrf cookie unless the browser has one); where PSU_OIDC_ISSUER is set, a redirect to the bank's OpenID Connect provider instead (sets the psu_dashboard_oidc cookie).",
        operationId: 'psuDashboard',
        tags: TAGS,
        querystring: Type.Object({ notice: field('What the last change did: withdrawn or cancelled') }),
        response: {
          200: HTML_PAGE('The dashboard, or the login form'),
          ...apiErrors(400),
          302: REDIRECT("To the bank's OpenID Connect provider's login, where it is configured"),
          429: HTML_PAGE(
            "Too many logins begun at the bank's OpenID Connect provider from this address: try again after Retry-After seconds",
          ),
          503: HTML_PAGE(
            "The bank's login or the database does not answer now: a page that says so, with Retry-After",
          ),
        },
      },
      errorHandler,
      handler: async (request, reply) => {
        noStore(config, request, reply);
        const secret = cookieOf(request, SESSION_COOKIE);
        const psuId = await psuOfSession(context, secret);
        if (psuId !== undefined && secret !== undefined)
          return sendDashboard(context, reply, { secret, psuId }, request.query.notice);
        // Each login begun at the provider is a row: counted per address as the password pages are.
        if (context.psuIdentityProvider !== undefined) {
          await limits.psuAddress.step?.(request, reply);
          if (reply.sent) return reply;
        }
        const leaving = await beginDashboardProviderLogin(
          context,
          baseUrlOf(config, request) + DASHBOARD_CALLBACK_PATH,
        );
        if (leaving !== undefined) {
          setBrowserCookie(request, reply, base, leaving.browser);
          return reply.redirect(leaving.location, 302);
        }
        const cookie = cookieOf(request, CSRF_COOKIE);
        const csrf = cookie !== undefined && /^[A-Za-z0-9_-]{43}$/.test(cookie) ? cookie : newSecret();
        if (csrf !== cookie) setCsrfCookie(config, request, reply, csrf);
        return sendHtml(reply, 200, loginPage(base, csrf));
      },
    }),
  );
  app.post(
    `${DASHBOARD_PATH}/login`,
    route({
      // Password pages: counted per client address.
      onRequest: [limits.psuAddress],
      schema: {
        summary: "The PSU's permission dashboard: log in (HTML form)",
        description:
          'The same PSU ids, passwords and lockout as the login page of the redirect flow. Sets the psu_session cookie.',
        operationId: 'psuDashboardLogin',
        tags: TAGS,
        consumes: FORM,
        body: Type.Object({
          csrf: CSRF_FIELD,
          psu_id: field('Personal number (12 digits) or customer id'),
          password: field('The password'),
        }),
        response: {
          302: BACK,
          ...pageErrors('The login form is no longer valid (a bad CSRF token)'),
          401: HTML_PAGE('Wrong PSU id or password, or locked after too many attempts'),
        },
      },
      errorHandler,
      handler: async (request, reply) => {
        noStore(config, request, reply);
        const csrfCookie = cookieOf(request, CSRF_COOKIE);
        const login = await logInToDashboard(context, request.body, csrfCookie, normalizeIP(request.ip));
        if (login.outcome === 'invalid') return invalid(reply);
        if (login.outcome !== 'session') {
          const error =
            login.outcome === 'locked'
              ? 'Too many failed attempts. Your login is locked for a while; try again later.'
              : 'The PSU id or the password is wrong.';
          return sendHtml(reply, 401, loginPage(base, csrfCookie!, { error, psuId: login.psuId }));
        }
        setSessionCookie(request, reply, base, login.secret);
        return back(reply);
      },
    }),
  );
  const actionSchema = (summary: string, operationId: string, param: string, extra = {}) => ({
    summary,
    operationId,
    tags: TAGS,
    consumes: FORM,
    params: Type.Object({ [param]: Type.String() }),
    body: Type.Object({ csrf: CSRF_FIELD }),
    response: {
      302: BACK,
      ...pageErrors(INVALID),
      404: HTML_PAGE("Not one of the PSU's (another PSU's id answers the same: nothing changes)"),
      ...extra,
    },
  });
  app.post(
    `${DASHBOARD_PATH}/consents/:consentId/withdraw`,
    route({
      schema: actionSchema(
        'The PSU withdraws a consent (HTML form)',
        'psuDashboardWithdrawConsent',
        'consentId',
      ),
      errorHandler,
      handler: async (request, reply) => {
        const psu = await actor(request, reply, request.body.csrf);
        if (psu === undefined) return invalid(reply);
        const { consentId } = request.params as { consentId: string };
        if (!(await withdrawConsentByPsu(context, psu, consentId))) return unknown(reply);
        return back(reply, 'withdrawn');
      },
    }),
  );
  app.post(
    `${DASHBOARD_PATH}/payments/:paymentId/cancel`,
    route({
      schema: actionSchema(
        'The PSU cancels a future-dated payment (HTML form)',
        'psuDashboardCancelPayment',
        'paymentId',
        { 409: HTML_PAGE('The payment is being made or no longer waits for its date') },
      ),
      errorHandler,
      handler: async (request, reply) => {
        const psu = await actor(request, reply, request.body.csrf);
        if (psu === undefined) return invalid(reply);
        const { paymentId } = request.params as { paymentId: string };
        const outcome = await cancelPaymentByPsu(context, psu, paymentId);
        if (outcome === 'unknown') return unknown(reply);
        if (outcome === 'too-late') {
          const text = 'The payment is being made or no longer waits for its date.';
          return sendMessage(reply, base, 409, 'Too late to cancel', text);
        }
        return back(reply, 'cancelled');
      },
    }),
  );
  app.post(
    `${DASHBOARD_PATH}/logout`,
    route({
      schema: {
        summary: "The PSU's permission dashboard: log out (HTML form)",
        operationId: 'psuDashboardLogout',
        tags: TAGS,
        consumes: FORM,
        body: Type.Object({ csrf: CSRF_FIELD }),
        response: { 302: BACK, ...pageErrors(INVALID) },
      },
      errorHandler,
      handler: async (request, reply) => {
        noStore(config, request, reply);
        const secret = cookieOf(request, SESSION_COOKIE);
        if ((await psuOfForm(context, secret, request.body.csrf)) === undefined) return invalid(reply);
        await logOutOfDashboard(context, secret);
        setSessionCookie(request, reply, base, '', '; Max-Age=0');
        return back(reply);
      },
    }),
  );
}
