// What the dashboard's routes (the built-in login's and the provider login's) share: the session
// cookie, the dashboard as the PSU sees it, and its one-line pages.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { listPsuConsents } from '../../services/account-information/psu-consents.ts';
import { csrfOfSession } from '../../services/authorization/psu-sessions.ts';
import { listPsuScheduledPayments } from '../../services/payments/psu-payments.ts';
import type { ServiceContext } from '../../services/shared/context.ts';
import { DASHBOARD_PATH, dashboardPage, messagePage, NOTICES, type Notice } from './dashboard-page.ts';
import { sendHtml } from './reply.ts';

export const SESSION_COOKIE = 'psu_session';

/**
 * The session's cookie: HttpOnly, SameSite=Strict, sent to the dashboard's paths only. No expiry (`''`):
 * a browser session's cookie; the server ends the session after SESSION_IDLE_MS idle anyway.
 */
export function setSessionCookie(
  request: FastifyRequest,
  reply: FastifyReply,
  basePath: string,
  secret: string,
  expiry = '',
) {
  const secure = request.protocol === 'https' ? '; Secure' : '';
  reply.header(
    'Set-Cookie',
    `${SESSION_COOKIE}=${secret}; Path=${basePath}${DASHBOARD_PATH}; HttpOnly; SameSite=Strict${expiry}${secure}`,
  );
}

/** The PSU's consents and future-dated payments, with the forms of the session. */
export async function sendDashboard(
  context: ServiceContext,
  reply: FastifyReply,
  session: { readonly secret: string; readonly psuId: string },
  notice: string | undefined,
) {
  const psu = { psuId: session.psuId };
  const consents = await listPsuConsents(context, psu);
  const payments = await listPsuScheduledPayments(context, psu);
  const shown = notice !== undefined && Object.hasOwn(NOTICES, notice) ? (notice as Notice) : undefined;
  const page = dashboardPage(context.config.basePath, csrfOfSession(session.secret), {
    psuId: session.psuId,
    consents,
    payments,
    notice: shown,
  });
  return sendHtml(reply, 200, page);
}

export function sendMessage(
  reply: FastifyReply,
  basePath: string,
  status: 400 | 401 | 404 | 409,
  title: string,
  text: string,
) {
  return sendHtml(reply, status, messagePage(basePath, title, text));
}
