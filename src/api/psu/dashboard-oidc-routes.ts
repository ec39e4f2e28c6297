// The permission dashboard's login at the bank's OpenID Connect provider (PSU_OIDC_*): GET
// /psu/dashboard sends a browser without a session there (dashboard-routes.ts), and the provider sends
// it back here. The callback URL given to the provider (and registered there, beside the redirect
// flow's /psu/oidc/callback) is PUBLIC_URL, else the request's own origin, then BASE_PATH and
// /psu/dashboard/oidc/callback. The callback answers the dashboard itself rather than a redirect: the
// session cookie is SameSite=Strict, and a redirect chain begun at the provider would not carry it.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { completeDashboardProviderLogin } from '../../services/authorization/dashboard-provider-login.ts';
import type { ServiceContext } from '../../services/shared/context.ts';
import { HTML_PAGE } from '../oauth/answers.ts';
import type { Api } from '../shared/api.ts';
import type { Pipelines } from '../shared/pipeline.ts';
import { DASHBOARD_PATH } from './dashboard-page.ts';
import { sendDashboard, sendMessage, setSessionCookie } from './dashboard-reply.ts';
import { CallbackQuery } from './oidc-routes.ts';
import { cookieOf, type DatabaseUnavailable, noStore, psuPageErrors } from './reply.ts';

export const DASHBOARD_CALLBACK_PATH = `${DASHBOARD_PATH}/oidc/callback`;
/**
 * Ties a login to the browser that left for the provider. SameSite=Lax, not Strict: it must come along
 * on the provider's redirect back, a navigation from another site.
 */
const BROWSER_COOKIE = 'psu_dashboard_oidc';

export function setBrowserCookie(
  request: FastifyRequest,
  reply: FastifyReply,
  basePath: string,
  secret: string,
) {
  const secure = request.protocol === 'https' ? '; Secure' : '';
  reply.header(
    'Set-Cookie',
    `${BROWSER_COOKIE}=${secret}; Path=${basePath}${DASHBOARD_PATH}/oidc; HttpOnly; SameSite=Lax; Max-Age=300${secure}`,
  );
}

export function dashboardOidcRoutes(
  app: Api,
  context: ServiceContext,
  { route }: Pipelines,
  unavailable?: DatabaseUnavailable,
): void {
  if (context.psuIdentityProvider === undefined) return;
  const { config } = context;
  const base = config.basePath;
  app.get(
    DASHBOARD_CALLBACK_PATH,
    route({
      schema: {
        summary: "The PSU's permission dashboard: the PSU comes back from the bank's OpenID Connect provider",
        description:
          'With the psu_dashboard_oidc cookie of the browser that left, the state is taken once; the code is exchanged and the ID token checked, and the PSU it names (PSU_OIDC_ID_CLAIM), known to the PSU directory, gets a session (the psu_session cookie) and sees the dashboard.',
        operationId: 'psuDashboardOidcCallback',
        tags: ['PSU pages'],
        querystring: CallbackQuery,
        response: {
          200: HTML_PAGE('Logged in: the dashboard'),
          400: HTML_PAGE('The link is no longer valid (used, unknown state, or another browser)'),
          401: HTML_PAGE("The login at the bank did not succeed, or the PSU is not the bank's customer"),
          503: HTML_PAGE("The bank's login or the database does not answer now: a page that says so"),
        },
      },
      errorHandler: psuPageErrors(config, unavailable),
      handler: async (request, reply) => {
        noStore(config, request, reply);
        const back = await completeDashboardProviderLogin(
          context,
          request.query,
          cookieOf(request, BROWSER_COOKIE),
        );
        if (back.outcome === 'invalid')
          return sendMessage(
            reply,
            base,
            400,
            'This page is no longer valid',
            'Open your permissions again and log in.',
          );
        if (back.outcome === 'failed') {
          request.log.warn({ problem: back.problem }, "the PSU's dashboard login at the provider failed");
          const text =
            'The login at your bank did not succeed. Open your permissions again to try once more.';
          return sendMessage(reply, base, 401, 'Not logged in', text);
        }
        setSessionCookie(request, reply, base, back.secret);
        return sendDashboard(context, reply, back, undefined);
      },
    }),
  );
}
