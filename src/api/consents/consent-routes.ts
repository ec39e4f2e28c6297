// Account consents: POST /psd2/v1/consents, GET /{consentId}, GET /{consentId}/status, DELETE
// /{consentId}; the same under /psd2/gb/v1 and /psd2/lu/v1 for the GB and Luxembourg accounts APIs (whose
// products include consent).
import { Type } from '@sinclair/typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { bearer } from '../../http/bearer.ts';
import { grantOf, tppOf } from '../../http/request-context.ts';
import { header, tppHeaders } from '../../http/tpp-headers.ts';
import {
  type AisApi,
  type ConsentRequest,
  createAccountConsent,
  deleteConsent,
  MAX_FREQUENCY_PER_DAY,
  readConsent,
  readConsentStatus,
} from '../../services/account-information/consents.ts';
import type { ServiceContext } from '../../services/shared/context.ts';
import { baseUrlOf } from '../base-url.ts';
import { ConsentResponse } from './schemas.ts';

const ConsentBody = Type.Object(
  {
    access: Type.Literal('ALL_ACCOUNTS'),
    validUntil: Type.Optional(Type.String({ maxLength: 10 })),
    frequencyPerDay: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_FREQUENCY_PER_DAY })),
  },
  { additionalProperties: false },
);

const ConsentView = Type.Object({
  consentId: Type.String(),
  consentStatus: Type.String(),
  access: Type.Literal('ALL_ACCOUNTS'),
  validUntil: Type.String(),
  frequencyPerDay: Type.Integer(),
});

const ConsentParams = Type.Object({ consentId: Type.String({ maxLength: 64 }) });
type Params = { Params: { consentId: string } };

/** Luxembourg's accounts API, one product per customer type; either one includes consent. */
const LU_PRODUCTS = ['accounts-lu-individual', 'accounts-lu-corporate'];

/**
 * Where each account-information API lives and, live, the products it needs (spec Authentication
 * rule 3): the general API's consents need `consents`; GB's and LU's products include consent.
 */
export const AIS_APIS: readonly {
  api: AisApi;
  prefix: string;
  consents: readonly string[];
  accounts: readonly string[];
}[] = [
  { api: 'general', prefix: '/psd2/v1', consents: ['consents'], accounts: ['accounts'] },
  { api: 'gb', prefix: '/psd2/gb/v1', consents: ['accounts-gb'], accounts: ['accounts-gb'] },
  { api: 'lu', prefix: '/psd2/lu/v1', consents: LU_PRODUCTS, accounts: LU_PRODUCTS },
];

export function consentRoutes(app: FastifyInstance, context: ServiceContext): void {
  for (const { api, prefix, consents } of AIS_APIS) {
    const live = () => ({ role: 'AIS' as const, products: consents });
    const hooks = [tppHeaders(context, { country: 'path', live }), bearer(context)];
    const call = (request: FastifyRequest<Params>) =>
      [tppOf(request).app, grantOf(request), api, request.params.consentId] as const;

    app.post<{ Body: ConsentRequest }>(
      `${prefix}/consents`,
      { onRequest: hooks, schema: { body: ConsentBody, response: { 200: ConsentResponse } } },
      async (request, reply) => {
        const tpp = tppOf(request);
        const answer = await createAccountConsent(context, {
          app: tpp.app,
          grant: grantOf(request),
          requestId: tpp.requestId,
          api,
          body: request.body,
          psuId: header(request, 'psu-id'),
          baseUrl: baseUrlOf(context.config, request),
        });
        return reply.code(answer.statusCode).send(answer.body);
      },
    );

    app.get<Params>(
      `${prefix}/consents/:consentId`,
      { onRequest: hooks, schema: { params: ConsentParams, response: { 200: ConsentView } } },
      (request) => readConsent(context, ...call(request)),
    );

    app.get<Params>(
      `${prefix}/consents/:consentId/status`,
      {
        onRequest: hooks,
        schema: { params: ConsentParams, response: { 200: Type.Object({ consentStatus: Type.String() }) } },
      },
      (request) => readConsentStatus(context, ...call(request)),
    );

    app.delete<Params>(
      `${prefix}/consents/:consentId`,
      { onRequest: hooks, schema: { params: ConsentParams } },
      async (request, reply) => {
        await deleteConsent(context, ...call(request));
        return reply.code(204).send();
      },
    );
  }
}
