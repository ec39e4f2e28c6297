// POST and PUT /psd2/v1/third-parties (spec rows 2 and 3).
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { peerIdentity } from '../../http/mtls.ts';
import { tppIdsOnly } from '../../http/tpp-headers.ts';
import { addThirdPartyCertificate, enrollThirdParty } from '../../services/onboarding/third-parties.ts';
import type { ServiceContext } from '../../services/shared/context.ts';

const ThirdPartyResponse = Type.Object({ clientId: Type.String() });
const CertificateBody = Type.Object(
  { clientCertificate: Type.String({ minLength: 1, maxLength: 16_384 }) },
  { additionalProperties: false },
);

export function thirdPartiesRoutes(app: FastifyInstance, context: ServiceContext): void {
  app.post(
    '/psd2/v1/third-parties',
    { onRequest: tppIdsOnly, schema: { response: { 200: ThirdPartyResponse, 201: ThirdPartyResponse } } },
    async (request, reply) => {
      const answer = await enrollThirdParty(context, peerIdentity(request));
      return reply.code(answer.statusCode as 200 | 201).send(answer.body);
    },
  );
  app.put<{ Body: { clientCertificate: string } }>(
    '/psd2/v1/third-parties',
    { onRequest: tppIdsOnly, schema: { body: CertificateBody, response: { 200: ThirdPartyResponse } } },
    async (request, reply) => {
      const answer = await addThirdPartyCertificate(
        context,
        peerIdentity(request),
        request.body.clientCertificate,
      );
      return reply.code(answer.statusCode).send(answer.body);
    },
  );
}
