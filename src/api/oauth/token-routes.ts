// POST /oauth2/token/1.0 (spec row 1), also at /redirect/oauth2/token/1.0 and
// /refresh/oauth2/token/1.0 (API-NOTES). Form-encoded only; RFC 6749 answers and errors.

import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { OAuthError } from '../../domain/errors.ts';
import { auditActorOf } from '../../http/audit-actor.ts';
import { peerIdentity } from '../../http/mtls.ts';
import { exchangeToken } from '../../services/authorization/grants/token-endpoint.ts';
import type { ServiceContext } from '../../services/shared/context.ts';
import { type Api, asBody } from '../shared/api.ts';
import type { Pipelines } from '../shared/pipeline.ts';
import { answer, oauthErrors, operationSuffix } from '../shared/schemas.ts';

/** Each path's grant: the one its form shows first (the docs page tries it as it is). */
const TOKEN_PATHS = [
  { path: '/oauth2/token/1.0', name: 'getToken', also: '', grant: 'client_credentials' },
  {
    path: '/redirect/oauth2/token/1.0',
    name: 'getTokenRedirect',
    also: ' (the redirect flow’s name for it)',
    grant: 'authorization_code',
  },
  {
    path: '/refresh/oauth2/token/1.0',
    name: 'getTokenRefresh',
    also: ' (the refresh name for it)',
    grant: 'refresh_token',
  },
] as const;

type Grant = (typeof TOKEN_PATHS)[number]['grant'];

const text = (description: string, examples?: string[]) =>
  Type.Optional(Type.String({ description, ...(examples === undefined ? {} : { examples }) }));

const EXAMPLES: Record<Grant, { key: string; summary: string; value: Record<string, string> }> = {
  client_credentials: {
    key: 'clientCredentials',
    summary: 'A client-credentials token for payments',
    value: { grant_type: 'client_credentials', scope: 'PIS', client_id: '0a5c7e3d8f9b4c21a6e4d2f1b3c5a7e9' },
  },
  authorization_code: {
    key: 'authorizationCode',
    summary: "The code of the redirect for the PSU's token",
    value: {
      grant_type: 'authorization_code',
      scope: 'PIS:0f9d7c1e-3b7a-4c55-9f0e-5b2c8e1d4a6f',
      client_id: '0a5c7e3d8f9b4c21a6e4d2f1b3c5a7e9',
      code: 'Zk3v9Qm2Xw7tLp4Rb8Yc1Hs6',
      redirect_uri: 'https://tpp.example/callback',
    },
  },
  refresh_token: {
    key: 'refreshToken',
    summary: 'A new account-access token',
    value: {
      grant_type: 'refresh_token',
      client_id: '0a5c7e3d8f9b4c21a6e4d2f1b3c5a7e9',
      refresh_token: 'r8Tn2Vb5Kq9Wx3Lm7Pd1Gh4J',
    },
  },
};

/**
 * The parameters of every grant; which are required depends on grant_type, and the endpoint names a
 * missing one in its invalid_request answer. Each path's form starts from its own grant.
 */
const tokenForm = (grant: Grant) =>
  Type.Object(
    {
      grant_type: text('client_credentials, authorization_code or refresh_token', [grant]),
      client_id: text('The app id; onboarding: the TPP id'),
      scope: text(
        'client_credentials: PIS, AIS, CBPII or PSD2-ADMIN; authorization_code: the scope of the authorization, e.g. `PIS:<paymentId>`',
        grant === 'client_credentials' ? ['PIS'] : undefined,
      ),
      code: text('authorization_code: the code of the redirect'),
      redirect_uri: text("authorization_code: the app's redirect URI, as in the authorization request"),
      refresh_token: text('refresh_token: the refresh token of an account-access token'),
    },
    {
      additionalProperties: true,
      'x-examples': {
        [EXAMPLES[grant].key]: { summary: EXAMPLES[grant].summary, value: EXAMPLES[grant].value },
      },
    },
  );

const TokenAnswer = Type.Object(
  {
    access_token: Type.String({ description: 'An opaque bearer token' }),
    expires_in: Type.Integer({ description: 'Seconds of validity' }),
    token_type: Type.Literal('Bearer'),
    refresh_token: Type.Optional(Type.String({ description: 'Account access only: for new tokens later' })),
  },
  {
    examples: [{ access_token: 'q5Fh0k3rW1tDzXb2QvB6yA8eJ9mL4nC7', expires_in: 86400, token_type: 'Bearer' }],
  },
);

/**
 * Only forms: a JSON body (which the JSON parser has read) is a 400 invalid_request, as the real
 * service answers it (API-NOTES); other media types are 415 before any parser.
 */
async function formOnly(request: FastifyRequest): Promise<void> {
  if (!request.headers['content-type']?.toLowerCase().startsWith('application/x-www-form-urlencoded')) {
    throw new OAuthError('invalid_request', 'the body must be application/x-www-form-urlencoded');
  }
}

/** The token routes under `prefix`: the base path, or an extra auth base path. */
export function tokenRoutes(
  app: Api,
  context: ServiceContext,
  { route, limits }: Pipelines,
  prefix: string,
): void {
  const suffix = operationSuffix(prefix, context.config.basePath);
  const alias = suffix === '' ? '' : ` (also under ${prefix})`;
  for (const { path, name, also, grant } of TOKEN_PATHS) {
    app.post(
      path,
      route({
        config: { errorShape: 'oauth' },
        // Counted per address before the body is read, per client_id and address once it is.
        onRequest: [limits.authorizationAddress],
        preValidation: [limits.authorizationApp, formOnly],
        schema: {
          summary: `Get an access token${also}${alias}`,
          description:
            'Step 1: client credentials (grant_type=client_credentials, scope, client_id). Step 3 of the redirect flow: the code for the PSU token (grant_type=authorization_code, scope, client_id, code, redirect_uri). Account access: refresh_token.',
          operationId: `${name}${suffix}`,
          tags: ['OAuth'],
          consumes: ['application/x-www-form-urlencoded'],
          body: tokenForm(grant),
          response: {
            200: answer(TokenAnswer, 'The token'),
            ...oauthErrors(400, 401, 413, 415, 500),
          },
        },
        handler: async (request, reply) => {
          const token = await exchangeToken(
            context,
            request.body as Record<string, string>,
            peerIdentity(request),
            auditActorOf(request),
          );
          reply.header('Cache-Control', 'no-store').header('Pragma', 'no-cache');
          return asBody(token);
        },
      }),
    );
  }
}
