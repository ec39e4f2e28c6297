// GET /oauth2/authorize/1.0, also named /redirect/oauth2/authorize/1.0 (spec row 8).

import { Type } from '@sinclair/typebox';
import { ApiError } from '../../domain/errors.ts';
import { auditActorOf } from '../../http/audit-actor.ts';
import { header } from '../../http/tpp-headers.ts';
import { type AuthorizeQuery, authorize } from '../../services/authorization/authorize.ts';
import type { PsuAnswer } from '../../services/authorization/psu-answer.ts';
import type { ServiceContext } from '../../services/shared/context.ts';
import { sendPsuAnswer } from '../psu/reply.ts';
import type { Api } from '../shared/api.ts';
import type { Pipelines } from '../shared/pipeline.ts';
import { apiErrors } from '../shared/schemas.ts';
import { wantsPage } from '../shared/wants-page.ts';
import { HTML_PAGE, REDIRECT } from './answers.ts';

/** A parameter the service checks itself (given once, storable text): errors then redirect to the TPP. */
const parameter = (description: string, examples?: string[]) =>
  Type.Optional(
    Type.Union([Type.String(), Type.Array(Type.String())], {
      description: `${description} (given once)`,
      ...(examples === undefined ? {} : { examples }),
    }),
  );

const AuthorizeQuerySchema = Type.Object({
  response_type: parameter('code', ['code']),
  scope: parameter('`PIS:<paymentId>` (basket: `PIS:<signingBaskedId>`), or `AIS:<consentId>`'),
  client_id: parameter('The app id'),
  state: parameter('Chosen by the TPP; returned with the code'),
  redirect_uri: parameter("The app's registered redirect URI"),
  code_challenge: parameter('PKCE (RFC 7636), optional: the S256 challenge'),
  code_challenge_method: parameter('S256'),
});

/** The PSU's page for a link that may not redirect (unknown client, unregistered URI): never the link's text. */
function unusableLink(error: ApiError): PsuAnswer {
  return {
    kind: 'page',
    status: error.status,
    page: {
      view: 'message',
      title: 'This link cannot be used',
      text: `The app that sent you here made a mistake (${error.message}). Nothing was approved or shared: go back to the app, or tell the people who make it.`,
    },
  };
}

export function authorizationRoutes(app: Api, context: ServiceContext, { route, limits }: Pipelines): void {
  const paths = [
    { path: '/oauth2/authorize/1.0', operationId: 'authorize', also: '' },
    { path: '/redirect/oauth2/authorize/1.0', operationId: 'authorizeRedirect', also: ' (its other name)' },
  ];
  for (const { path, operationId, also } of paths) {
    // Errors with a valid client and redirect URI are redirects (API-NOTES), also for unstorable text.
    app.get(
      path,
      route({
        config: { checksOwnText: true },
        // Counted per address first, then per client_id and address (the query read).
        onRequest: [limits.authorizationAddress],
        preValidation: [limits.authorizationApp],
        schema: {
          summary: `Authorize: the PSU approves a payment, basket or consent${also}`,
          description:
            'Step 3 of the redirect flow. The sandbox approves at once and redirects to redirect_uri with code and state; live, the PSU logs in and approves on our pages first. With a valid client and redirect URI, errors are redirects too (error, error_description); otherwise 400 and no redirect.',
          operationId,
          tags: ['OAuth'],
          querystring: AuthorizeQuerySchema,
          headers: Type.Object({
            'X-Sandbox-User': Type.Optional(
              Type.String({
                description:
                  "Sandbox only: the sandbox user who approves at once, e.g. SANDBOX-INDIVIDUAL-SE-1 (GET /sandbox/test-data lists them; an unknown name answers 400 naming the valid ones). A payment is approved by its debtor account's owner, a consent with PSU-ID by that PSU: another user is access_denied. Live: ignored (the PSU logs in).",
                examples: ['SANDBOX-INDIVIDUAL-SE-1'],
              }),
            ),
          }),
          response: {
            302: REDIRECT(
              'To redirect_uri with code and state, or error and error_description; live with PSU_OIDC_ISSUER set, to /psu/oidc/start (the login at the bank)',
            ),
            200: HTML_PAGE('Live: the login page of the PSU'),
            ...apiErrors(500),
            400: {
              description:
                "Unknown client_id or a redirect_uri that is not the app's: never a redirect. A page for a browser (Accept: text/html before application/json), else the API's error body",
              content: {
                'text/html': { schema: Type.String() },
                'application/json': { schema: Type.Ref('ApiError') },
              },
            },
          },
        },
        handler: async (request, reply) => {
          let answer: PsuAnswer;
          try {
            answer = await authorize(
              context,
              request.query as AuthorizeQuery,
              header(request, 'x-sandbox-user'),
              auditActorOf(request),
            );
          } catch (error) {
            if (!(error instanceof ApiError) || error.status !== 400 || !wantsPage(request)) throw error;
            answer = unusableLink(error);
          }
          return sendPsuAnswer(context.config, request, reply, answer);
        },
      }),
    );
  }
}
