// The Swedish decoupled authorization (spec rows 9-11): version 2 at /decoupled/eid/initAuthorization/2.0
// with its token and cancel URLs, and version 1 as clients of the real service still call it,
// /decoupled/mbid/initAuthorization/1.0 (psu_id names the PSU; same-device start). Errors have the
// OAuth shape: {"error", "error_description"}.
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { peerIdentity } from '../../http/mtls.ts';
import {
  cancelAuthorization,
  type InitRequest,
  initAuthorization,
  pollToken,
  type SessionLinks,
} from '../../services/authorization/decoupled.ts';
import type { ServiceContext } from '../../services/shared/context.ts';
import { originOf } from '../base-url.ts';

const InitBody = Type.Object(
  {
    client_id: Type.String({ minLength: 1, maxLength: 64 }),
    scope: Type.String({ minLength: 1, maxLength: 80 }),
    psu_client_ip: Type.String({ minLength: 1, maxLength: 45 }),
    bisa_same_device: Type.Boolean(),
  },
  { additionalProperties: false },
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
type InitRequestV1 = { client_id: string; scope: string; psu_client_ip: string; psu_id: string };

const Link = Type.Object({ href: Type.String(), hints: Type.Object({ allow: Type.Array(Type.String()) }) });

const InitResponse = Type.Object({
  auto_start_token: Type.Optional(Type.String()),
  qr_code: Type.Optional(Type.String()),
  sleep_time: Type.Integer(),
  _links: Type.Object({ token: Link, cancel: Link }),
});

const TokenResponse = Type.Object({
  result: Type.String(),
  sleep_time: Type.Optional(Type.Integer()),
  qr_code: Type.Optional(Type.String()),
  access_token: Type.Optional(Type.String()),
  token_type: Type.Optional(Type.String()),
  expires_in: Type.Optional(Type.Integer()),
  refresh_token: Type.Optional(Type.String()),
});

const SessionQuery = Type.Object({ sessionId: Type.Optional(Type.String({ maxLength: 100 })) });
/** The token and cancel calls take an empty JSON object (spec row 10); a missing or empty body is {}. */
const EmptyBody = Type.Optional(Type.Object({}, { additionalProperties: true }));

/** The routes under `prefix` (the base path, or an extra auth base path): links point back under it. */
export function decoupledRoutes(app: FastifyInstance, context: ServiceContext, prefix: string): void {
  void app.register(async (decoupled) => {
    // Clients poll with Content-Type: application/json and no body at all: that is the empty object.
    const json = decoupled.getDefaultJsonParser('error', 'ignore');
    decoupled.removeContentTypeParser('application/json');
    decoupled.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) =>
      (body as string).trim() === '' ? done(null, {}) : json(request, body as string, done),
    );
    sessionRoutes(decoupled, context, prefix);
  });
}

function sessionRoutes(app: FastifyInstance, context: ServiceContext, prefix: string): void {
  const config = { errorShape: 'oauth' as const };
  const linksOf = (request: Parameters<typeof originOf>[1], version: SessionLinks['version']) => ({
    baseUrl: originOf(context.config, request) + prefix,
    version,
  });

  app.post<{ Body: InitRequest }>(
    '/decoupled/eid/initAuthorization/2.0',
    { config, schema: { body: InitBody, response: { 200: InitResponse } } },
    async (request, reply) => {
      const answer = await initAuthorization(
        context,
        request.body,
        linksOf(request, 'eid/{action}/2.0'),
        peerIdentity(request),
      );
      return reply.header('Cache-Control', 'no-store').send(answer);
    },
  );

  app.post<{ Body: InitRequestV1 }>(
    '/decoupled/mbid/initAuthorization/1.0',
    { config, schema: { body: InitBodyV1, response: { 200: InitResponse } } },
    async (request, reply) => {
      const { client_id, scope, psu_client_ip, psu_id } = request.body;
      const answer = await initAuthorization(
        context,
        { client_id, scope, psu_client_ip, psu_id, bisa_same_device: true },
        linksOf(request, 'mbid/{action}/1.0'),
        peerIdentity(request),
      );
      return reply.header('Cache-Control', 'no-store').send(answer);
    },
  );

  for (const version of ['eid/{action}/2.0', 'mbid/{action}/1.0'] as const) {
    app.post<{ Querystring: { sessionId?: string } }>(
      `/decoupled/${version.replace('{action}', 'token')}`,
      { config, schema: { querystring: SessionQuery, body: EmptyBody, response: { 200: TokenResponse } } },
      async (request, reply) => {
        const answer = await pollToken(context, request.query.sessionId, peerIdentity(request));
        return reply.header('Cache-Control', 'no-store').send(answer);
      },
    );

    app.post<{ Querystring: { sessionId?: string } }>(
      `/decoupled/${version.replace('{action}', 'cancel')}`,
      { config, schema: { querystring: SessionQuery, body: EmptyBody } },
      async (request, reply) => {
        await cancelAuthorization(context, request.query.sessionId);
        return reply.code(204).send();
      },
    );
  }
}
