// GET /.well-known/jwks.json (RFC 8615, outside BASE_PATH): the public keys that sign status
// notifications (services/notifications/signing.ts), the current one first, then those a rotation still
// publishes. Public, no token; cached by clients for 5 minutes, which a rotation's steps outlast.
import { Type } from '@sinclair/typebox';
import type { NotificationSigner } from '../../services/notifications/signing.ts';
import type { Api } from '../shared/api.ts';
import type { Pipelines } from '../shared/pipeline.ts';

export const JWKS_PATH = '/.well-known/jwks.json';
/** Seconds a client may keep the key set. */
const MAX_AGE = 300;

const Jwk = Type.Object(
  {
    kty: Type.Literal('EC'),
    crv: Type.Literal('P-256'),
    x: Type.String(),
    y: Type.String(),
    kid: Type.String({ description: "RFC 7638 thumbprint of the key; a signature's keyid names it" }),
    alg: Type.Literal('ES256'),
    use: Type.Literal('sig'),
  },
  { additionalProperties: false },
);

const JwksBody = Type.Object(
  { keys: Type.Array(Jwk, { description: 'The current key first, then retired ones still published' }) },
  { additionalProperties: false },
);

export function jwksRoutes(app: Api, { route }: Pipelines, signer: Pick<NotificationSigner, 'jwks'>): void {
  app.get(
    JWKS_PATH,
    route({
      schema: {
        summary: 'The public keys that sign status notifications (JWKS)',
        description:
          "Verify a notification's HTTP Message Signature (RFC 9421) with the key its keyid names: verifyNotification of @psd2-gateway/client does. A key is published before it signs and for 24 hours after it stops.",
        operationId: 'getNotificationKeys',
        tags: ['Service'],
        response: { 200: { ...JwksBody, description: 'The key set (RFC 7517)' } },
      },
      handler: async (_request, reply) => {
        reply.header('Cache-Control', `public, max-age=${MAX_AGE}`);
        const { keys } = await signer.jwks();
        return { keys: [...keys] };
      },
    }),
  );
}
