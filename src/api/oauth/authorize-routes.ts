// GET /oauth2/authorize/1.0, also named /redirect/oauth2/authorize/1.0 (spec row 8).
import { Type } from '@sinclair/typebox';
import { type AuthorizeQuery, authorize } from '../../services/authorization/authorize.ts';
import type { ServiceContext } from '../../services/shared/context.ts';
import { sendPsuAnswer } from '../psu/reply.ts';
import type { Api } from '../shared/api.ts';
import { apiErrors } from '../shared/schemas.ts';
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

export function authorizeRoutes(app: Api, context: ServiceContext): void {
  const paths = [
    { path: '/oauth2/authorize/1.0', operationId: 'authorize', also: '' },
    { path: '/redirect/oauth2/authorize/1.0', operationId: 'authorizeRedirect', also: ' (its other name)' },
  ];
  for (const { path, operationId, also } of paths) {
    // Errors with a valid client and redirect URI are redirects (API-NOTES), also for unstorable text.
    app.get(
      path,
      {
        config: { checksOwnText: true, rateLimited: 'authorization' },
        schema: {
          summary: `Authorize: the PSU approves a payment, basket or consent${also}`,
          description:
            'Step 3 of the redirect flow. The sandbox approves at once and redirects to redirect_uri with code and state; live, the PSU logs in and approves on our pages first. With a valid client and redirect URI, errors are redirects too (error, error_description); otherwise 400 and no redirect.',
          operationId,
          tags: ['OAuth'],
          querystring: AuthorizeQuerySchema,
          response: {
            302: REDIRECT(
              'To redirect_uri with code and state, or error and error_description; live with PSU_OIDC_ISSUER set, to /psu/oidc/start (the login at the bank)',
            ),
            200: HTML_PAGE('Live: the login page of the PSU'),
            ...apiErrors(400, 500),
          },
        },
      },
      async (request, reply) => {
        const answer = await authorize(context, request.query as AuthorizeQuery);
        return sendPsuAnswer(context.config, request, reply, answer);
      },
    );
  }
}
