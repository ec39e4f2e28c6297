// POST /decoupled/eid/initAuthorization/2.0, the token URL and the cancel URL (spec rows 9-11).
// Errors have the OAuth shape: {"error", "error_description"}.
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { peerIdentity } from '../../http/mtls.ts';
import {
  cancelAuthorization,
  type InitRequest,
  initAuthorization,
  pollToken,
} from '../../services/authorization/decoupled.ts';
import type { ServiceContext } from '../../services/shared/context.ts';
import { baseUrlOf } from '../base-url.ts';

const InitBody = Type.Object(
  {
    client_id: Type.String({ minLength: 1, maxLength: 64 }),
    scope: Type.String({ minLength: 1, maxLength: 80 }),
    psu_client_ip: Type.String({ minLength: 1, maxLength: 45 }),
    bisa_same_device: Type.Boolean(),
  },
  { additionalProperties: false },
);

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
/** The token and cancel calls take an empty JSON object (spec row 10); a missing body is tolerated. */
const EmptyBody = Type.Optional(Type.Object({}, { additionalProperties: true }));

export function decoupledRoutes(app: FastifyInstance, context: ServiceContext): void {
  const config = { errorShape: 'oauth' as const };

  app.post<{ Body: InitRequest }>(
    '/decoupled/eid/initAuthorization/2.0',
    { config, schema: { body: InitBody, response: { 200: InitResponse } } },
    async (request, reply) => {
      const answer = await initAuthorization(
        context,
        request.body,
        baseUrlOf(context.config, request),
        peerIdentity(request),
      );
      return reply.header('Cache-Control', 'no-store').send(answer);
    },
  );

  app.post<{ Querystring: { sessionId?: string } }>(
    '/decoupled/eid/token/2.0',
    { config, schema: { querystring: SessionQuery, body: EmptyBody, response: { 200: TokenResponse } } },
    async (request, reply) => {
      const answer = await pollToken(context, request.query.sessionId, peerIdentity(request));
      return reply.header('Cache-Control', 'no-store').send(answer);
    },
  );

  app.post<{ Querystring: { sessionId?: string } }>(
    '/decoupled/eid/cancel/2.0',
    { config, schema: { querystring: SessionQuery, body: EmptyBody } },
    async (request, reply) => {
      await cancelAuthorization(context, request.query.sessionId);
      return reply.code(204).send();
    },
  );
}
