// POST and PUT /psd2/v1/third-parties (spec rows 2 and 3).

import { Type } from '@sinclair/typebox';
import { auditActorOf } from '../../http/audit-actor.ts';
import { peerIdentity } from '../../http/mtls.ts';
import { tppIdsOnly } from '../../http/tpp-headers.ts';
import { addThirdPartyCertificate, enrollThirdParty } from '../../services/onboarding/third-parties.ts';
import type { ServiceContext } from '../../services/shared/context.ts';
import { type Api, answerWith } from '../shared/api.ts';
import type { Pipelines } from '../shared/pipeline.ts';
import { answer, apiErrors, BODY_ERRORS, tppIdHeaders } from '../shared/schemas.ts';

const ThirdPartyResponse = Type.Object({
  clientId: Type.String({ description: 'The TPP id: X-Gateway-Client-Id and client_id of onboarding calls' }),
});
const CertificateBody = Type.Object(
  {
    clientCertificate: Type.String({
      minLength: 1,
      maxLength: 16_384,
      description: 'The certificate presented in TLS, base64 DER without line breaks or white space',
    }),
  },
  { additionalProperties: false },
);
const headers = Type.Object(tppIdHeaders);

export function thirdPartyRoutes(app: Api, context: ServiceContext, { route }: Pipelines): void {
  app.post(
    '/psd2/v1/third-parties',
    route({
      // No rate limit: the TPP is not an app yet, and its headers name no X-Gateway-Client-Id.
      onRequest: [tppIdsOnly],
      schema: {
        summary: 'Enroll as a TPP with the certificate presented in TLS (live)',
        description:
          'No body. The QWAC in the TLS handshake names the TPP (organization identifier) and its PSD2 roles. A TPP enrolled already gets its id again (200).',
        operationId: 'enrollThirdParty',
        tags: ['Onboarding'],
        headers,
        response: {
          201: answer(ThirdPartyResponse, 'Enrolled: the TPP id'),
          200: answer(ThirdPartyResponse, 'Enrolled already: the TPP id'),
          ...apiErrors(400, 401, 403, 500, ...BODY_ERRORS),
        },
      },
      handler: async (request, reply) =>
        answerWith(reply, await enrollThirdParty(context, peerIdentity(request), auditActorOf(request))),
    }),
  );
  app.put(
    '/psd2/v1/third-parties',
    route({
      // No rate limit: the TPP is not an app yet, and its headers name no X-Gateway-Client-Id.
      onRequest: [tppIdsOnly],
      schema: {
        summary: 'Add a certificate to an enrolled TPP (live)',
        description:
          'The certificate in the body must be the one presented in TLS. It is added; earlier ones, consents and tokens stay valid.',
        operationId: 'addThirdPartyCertificate',
        tags: ['Onboarding'],
        headers,
        body: CertificateBody,
        response: {
          200: answer(ThirdPartyResponse, 'Added: the TPP id'),
          ...apiErrors(400, 401, 403, 404, 500, ...BODY_ERRORS),
        },
      },
      handler: async (request, reply) =>
        answerWith(
          reply,
          await addThirdPartyCertificate(
            context,
            peerIdentity(request),
            request.body.clientCertificate,
            auditActorOf(request),
          ),
        ),
    }),
  );
}
