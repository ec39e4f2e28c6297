// The round trip to the bank's OpenID Connect provider (PSU_OIDC_*), where it replaces our login page:
// the start link that sends the PSU's browser there, and the callback it comes back to. The callback
// URL given to the provider (and registered there) is PUBLIC_URL, else the request's own origin,
// followed by BASE_PATH and /psu/oidc/callback.
import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  PROVIDER_LOGIN_PATHS,
  returnFromProvider,
  sendToProvider,
} from '../../services/authorization/provider-login.ts';
import type { ServiceContext } from '../../services/shared/context.ts';
import { baseUrlOf } from '../base-url.ts';
import { HTML_PAGE, REDIRECT } from '../oauth/answers.ts';
import type { Api } from '../shared/api.ts';
import type { Pipelines } from '../shared/pipeline.ts';
import { cookieOf, type DatabaseUnavailable, psuPageErrors, sendPsuAnswer } from './reply.ts';

/**
 * Ties a login to the browser that left for the provider. SameSite=Lax, not Strict: it must come
 * along on the provider's redirect back, a navigation from another site.
 */
const BROWSER_COOKIE = 'psu_oidc';

const parameter = (description: string) =>
  Type.Optional(Type.Union([Type.String(), Type.Array(Type.String())], { description }));

const StartQuery = Type.Object({ login: parameter('The single-use start link of the login') });
/** What the provider sends back to a callback (the dashboard's too). */
export const CallbackQuery = Type.Object({
  state: parameter('The state the gateway sent to the provider'),
  code: parameter("The provider's authorization code"),
  iss: parameter('The issuer (RFC 9207), where the provider sends it'),
  error: parameter("The provider's error, e.g. access_denied"),
  error_description: parameter("The provider's description of the error"),
});
const INVALID = HTML_PAGE('The link is no longer valid (used, expired, unknown state, or another browser)');

export function oidcRoutes(
  app: Api,
  context: ServiceContext,
  { route }: Pipelines,
  unavailable?: DatabaseUnavailable,
): void {
  if (context.psuIdentityProvider === undefined) return;
  const { config } = context;
  app.get(
    PROVIDER_LOGIN_PATHS.start,
    route({
      schema: {
        summary: "Live redirect flow with the bank's OpenID Connect provider: go and log in there",
        description:
          'Where PSU_OIDC_ISSUER is set, authorize redirects here instead of showing the login page. Sets the psu_oidc cookie and redirects to the provider (authorization code with PKCE, state, nonce).',
        operationId: 'psuOidcStart',
        tags: ['PSU pages'],
        querystring: StartQuery,
        response: {
          302: REDIRECT(
            "To the provider's login; or back to the TPP's redirect URI when the request expired",
          ),
          400: INVALID,
          503: HTML_PAGE(
            "The bank's login does not answer now: a page that says so, with Retry-After (the link stays valid)",
          ),
        },
      },
      errorHandler: psuPageErrors(config, unavailable),
      handler: async (request, reply) => {
        const { login } = request.query;
        const step = await sendToProvider(
          context,
          typeof login === 'string' ? login : undefined,
          baseUrlOf(config, request) + PROVIDER_LOGIN_PATHS.callback,
        );
        if (step.browser !== undefined) setBrowserCookie(request, reply, step.browser, config.basePath);
        return sendPsuAnswer(config, request, reply, step.answer);
      },
    }),
  );
  app.get(
    PROVIDER_LOGIN_PATHS.callback,
    route({
      schema: {
        summary: "Live redirect flow with the bank's OpenID Connect provider: the PSU comes back",
        description:
          "The redirect URI registered at the provider. With the psu_oidc cookie of the browser that left, the state is taken once; the code is exchanged and the ID token checked, and the PSU it names (PSU_OIDC_ID_CLAIM) sees the consent page. A provider's error, a failed check, or a PSU who may not approve ends at the TPP's redirect URI with error=access_denied (temporarily_unavailable when the provider or the bank's core banking system did not answer: the provider's code is spent, the TPP starts again).",
        operationId: 'psuOidcCallback',
        tags: ['PSU pages'],
        querystring: CallbackQuery,
        response: {
          200: HTML_PAGE('What the PSU is asked to approve'),
          302: REDIRECT("Back to the TPP's redirect URI: error and error_description, and state"),
          400: INVALID,
          503: HTML_PAGE(
            'A bank system does not answer before the state is taken: a page that says so, with Retry-After (the link stays valid)',
          ),
        },
      },
      errorHandler: psuPageErrors(config, unavailable),
      handler: async (request, reply) => {
        const step = await returnFromProvider(context, request.query, cookieOf(request, BROWSER_COOKIE));
        if (step.problem !== undefined)
          request.log.warn({ problem: step.problem }, "the PSU's login at the provider failed");
        return sendPsuAnswer(config, request, reply, step.answer);
      },
    }),
  );
}

function setBrowserCookie(request: FastifyRequest, reply: FastifyReply, secret: string, basePath: string) {
  const secure = request.protocol === 'https' ? '; Secure' : '';
  reply.header(
    'Set-Cookie',
    `${BROWSER_COOKIE}=${secret}; Path=${basePath}/psu/oidc; HttpOnly; SameSite=Lax; Max-Age=900${secure}`,
  );
}
