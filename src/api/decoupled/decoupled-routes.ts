// The Swedish decoupled authorization (spec rows 9-11): version 2 at /decoupled/eid/initAuthorization/2.0
// with its token and cancel URLs, and version 1 as clients of the real service still call it,
// /decoupled/mbid/initAuthorization/1.0 (psu_id names the PSU; same-device start). Errors have the
// OAuth shape: {"error", "error_description"}.
import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { auditActorOf } from '../../http/audit-actor.ts';
import { depthBounded } from '../../http/json-body.ts';
import { peerIdentity } from '../../http/mtls.ts';
import { clientIdOf } from '../../http/tpp-headers.ts';
import {
  cancelAuthorization,
  initAuthorization,
  pollToken,
  type SessionCaller,
  type SessionLinks,
} from '../../services/authorization/decoupled.ts';
import type { ServiceContext } from '../../services/shared/context.ts';
import { originOf } from '../base-url.ts';
import { type Api, asBody } from '../shared/api.ts';
import type { Pipelines } from '../shared/pipeline.ts';
import { answer, oauthErrors, operationSuffix } from '../shared/schemas.ts';

const InitBody = Type.Object(
  {
    client_id: Type.String({ minLength: 1, maxLength: 64 }),
    scope: Type.String({ minLength: 1, maxLength: 80 }),
    psu_client_ip: Type.String({ minLength: 1, maxLength: 45 }),
    bisa_same_device: Type.Boolean({
      description: 'true: the e-ID app is on this device (auto_start_token); false: another device (qr_code)',
    }),
  },
  {
    additionalProperties: false,
    'x-examples': {
      payment: {
        summary: 'Authorize a payment (scope `PIS:<paymentId>`)',
        value: {
          client_id: '0a5c7e3d8f9b4c21a6e4d2f1b3c5a7e9',
          scope: 'PIS:0f9d7c1e-3b7a-4c55-9f0e-5b2c8e1d4a6f',
          psu_client_ip: '192.0.2.1',
          bisa_same_device: false,
        },
      },
    },
  },
);

/** Version 1: the PSU by personal number (psu_id_type "1"), no bisa_same_device (the app starts on this device). */
const InitBodyV1 = Type.Object(
  {
    client_id: Type.String({ minLength: 1, maxLength: 64 }),
    scope: Type.String({ minLength: 1, maxLength: 80 }),
    psu_client_ip: Type.String({ minLength: 1, maxLength: 45 }),
    psu_id: Type.String({ pattern: '^[0-9]{12}$' }),
    psu_id_type: Type.Optional(Type.Literal('1')),
  },
  { additionalProperties: false },
);

const Link = Type.Object({ href: Type.String(), hints: Type.Object({ allow: Type.Array(Type.String()) }) });

const InitResponse = Type.Object({
  auto_start_token: Type.Optional(Type.String({ description: 'When bisa_same_device is true' })),
  qr_code: Type.Optional(Type.String({ description: 'When bisa_same_device is false' })),
  sleep_time: Type.Integer({ description: 'Milliseconds to wait before the first poll and between polls' }),
  _links: Type.Object({ token: Link, cancel: Link }),
});

const TokenResponse = Type.Object({
  result: Type.String({
    description: 'IN_PROGRESS (poll again after sleep_time), COMPLETE (with the token), USER_CANCEL',
  }),
  sleep_time: Type.Optional(Type.Integer()),
  qr_code: Type.Optional(Type.String()),
  access_token: Type.Optional(Type.String()),
  token_type: Type.Optional(Type.String()),
  expires_in: Type.Optional(Type.Integer()),
  refresh_token: Type.Optional(Type.String()),
});

const SessionQuery = Type.Object({
  sessionId: Type.Optional(Type.String({ maxLength: 100, description: 'From the _links of the start' })),
});
/** The token and cancel calls take an empty JSON object (spec row 10); a missing or empty body is {}. */
const EmptyBody = Type.Optional(Type.Object({}, { additionalProperties: true }));

/** The routes under `prefix` (the base path, or an extra auth base path): links point back under it. */
export function decoupledAuthorizationRoutes(
  app: Api,
  context: ServiceContext,
  pipelines: Pipelines,
  prefix: string,
): void {
  void app.register(async (decoupled) => {
    // Clients poll with Content-Type: application/json and no body at all: that is the empty object.
    const json = decoupled.getDefaultJsonParser('error', 'ignore');
    decoupled.removeContentTypeParser('application/json');
    decoupled.addContentTypeParser(
      'application/json',
      { parseAs: 'string' },
      depthBounded((request, body, done) =>
        body.trim() === '' ? done(null, {}) : json(request, body, done),
      ),
    );
    sessionRoutes(decoupled, context, pipelines, prefix);
  });
}

function sessionRoutes(
  app: Api,
  context: ServiceContext,
  { route, limits }: Pipelines,
  prefix: string,
): void {
  const suffix = operationSuffix(prefix, context.config.basePath);
  const alias = suffix === '' ? '' : ` (also under ${prefix})`;
  const config = { errorShape: 'oauth' as const };
  const linksOf = (request: Parameters<typeof originOf>[1], version: SessionLinks['version']) => ({
    baseUrl: originOf(context.config, request) + prefix,
    version,
  });

  /** The app a token or cancel call names (X-Gateway-Client-Id, an alias, or client_id), and its certificate. */
  const callerOf = (request: FastifyRequest): SessionCaller => {
    const body = request.body as { readonly client_id?: unknown } | undefined;
    const named = clientIdOf(request, context.config.clientIdHeaderAliases) ?? body?.client_id;
    // A client_id that is no text names no app: not the session's.
    const clientId = named === undefined || typeof named === 'string' ? named : '';
    return { clientId, peer: peerIdentity(request), actor: auditActorOf(request) };
  };
  const noStore = (reply: { header(name: string, value: string): unknown }) =>
    reply.header('Cache-Control', 'no-store');
  const startErrors = oauthErrors(400, 401, 413, 415, 500, 503);

  app.post(
    '/decoupled/eid/initAuthorization/2.0',
    route({
      config,
      // Counted per address before the body is read, per client_id and address once it is.
      onRequest: [limits.authorizationAddress],
      preValidation: [limits.authorizationApp],
      schema: {
        summary: `Start a decoupled (mobile e-ID) authorization${alias}`,
        description:
          "Sweden. The PSU approves in the e-ID app (auto_start_token on this device, qr_code on another); then poll _links.token no sooner than sleep_time apart until COMPLETE, which carries the PSU's token.",
        operationId: `startDecoupledAuthorization${suffix}`,
        tags: ['Decoupled authorization'],
        body: InitBody,
        response: {
          200: answer(InitResponse, 'Started: where to poll and how long to wait'),
          ...startErrors,
        },
      },
      handler: async (request, reply) => {
        const started = await initAuthorization(
          context,
          request.body,
          linksOf(request, 'eid/{action}/2.0'),
          peerIdentity(request),
        );
        noStore(reply);
        return asBody(started);
      },
    }),
  );

  app.post(
    '/decoupled/mbid/initAuthorization/1.0',
    route({
      config,
      // Counted per address before the body is read, per client_id and address once it is.
      onRequest: [limits.authorizationAddress],
      preValidation: [limits.authorizationApp],
      schema: {
        summary: `Start a decoupled authorization, version 1 (mbid: the PSU by personal number)${alias}`,
        description:
          'As version 2, with psu_id naming the PSU who signs; the e-ID app starts on this device.',
        operationId: `startDecoupledAuthorizationV1${suffix}`,
        tags: ['Decoupled authorization'],
        body: InitBodyV1,
        response: {
          200: answer(InitResponse, 'Started: where to poll and how long to wait'),
          ...startErrors,
        },
      },
      handler: async (request, reply) => {
        const { client_id, scope, psu_client_ip, psu_id } = request.body;
        const started = await initAuthorization(
          context,
          { client_id, scope, psu_client_ip, psu_id, bisa_same_device: true },
          linksOf(request, 'mbid/{action}/1.0'),
          peerIdentity(request),
        );
        noStore(reply);
        return asBody(started);
      },
    }),
  );

  for (const version of ['eid/{action}/2.0', 'mbid/{action}/1.0'] as const) {
    const v1 = version.startsWith('mbid') ? 'V1' : '';
    const named = v1 === '' ? '' : ', version 1';
    app.post(
      `/decoupled/${version.replace('{action}', 'token')}`,
      route({
        config,
        onRequest: [limits.authorizationAddress],
        preValidation: [limits.authorizationApp],
        schema: {
          summary: `Poll a decoupled authorization${named}${alias}`,
          description:
            "An empty JSON object (or no body). IN_PROGRESS: wait sleep_time and poll again; COMPLETE: the PSU token. Errors: intent_expired (the PSU did not finish in time), mbid_max_polling (polled too often), mbid_error (the e-ID order failed or was declined). Only the session's app (when the call names one in X-Gateway-Client-Id or client_id) and, under mutual TLS, a certificate of its TPP see the session; to anyone else it is unknown.",
          operationId: `pollDecoupledToken${v1}${suffix}`,
          tags: ['Decoupled authorization'],
          querystring: SessionQuery,
          body: EmptyBody,
          response: {
            200: answer(TokenResponse, 'The session: in progress, or complete with the token'),
            ...oauthErrors(400, 401, 413, 415, 500, 503),
          },
        },
        handler: async (request, reply) => {
          const polled = await pollToken(context, request.query.sessionId, callerOf(request));
          noStore(reply);
          return asBody(polled);
        },
      }),
    );

    app.post(
      `/decoupled/${version.replace('{action}', 'cancel')}`,
      route({
        config,
        onRequest: [limits.authorizationAddress],
        preValidation: [limits.authorizationApp],
        schema: {
          summary: `Cancel a decoupled authorization${named}${alias}`,
          description:
            "An empty JSON object (or no body). The e-ID order is cancelled; later polls are refused. Only the session's app and, under mutual TLS, a certificate of its TPP cancel it; to anyone else the session is unknown.",
          operationId: `cancelDecoupledAuthorization${v1}${suffix}`,
          tags: ['Decoupled authorization'],
          querystring: SessionQuery,
          body: EmptyBody,
          response: {
            204: { description: 'Cancelled', type: 'null' },
            ...oauthErrors(400, 413, 415, 500),
          },
        },
        handler: async (request, reply) => {
          await cancelAuthorization(context, request.query.sessionId, callerOf(request));
          reply.code(204);
        },
      }),
    );
  }
}
