// Account consents: POST /psd2/v1/consents, GET /{consentId}, GET /{consentId}/status, DELETE
// /{consentId}; the same under /psd2/gb/v1 and /psd2/lu/v1 for the GB and Luxembourg accounts APIs (whose
// products include consent).

import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import { auditActorOf } from '../../http/audit-actor.ts';
import { idempotencyKeyOf } from '../../http/idempotency-key.ts';
import { grantOf, tppOf } from '../../http/request-context.ts';
import { header } from '../../http/tpp-headers.ts';
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
import {
  announceSubscription,
  subscribingAnswer,
  subscriptionFrom,
  subscriptionHeaders,
} from '../notifications/subscribing.ts';
import { type Api, answerWith, asBody } from '../shared/api.ts';
import { bearer } from '../shared/bearer.ts';
import type { Pipelines } from '../shared/pipeline.ts';
import {
  answer,
  apiErrors,
  BEARER,
  BODY_ERRORS,
  KEYED_ERRORS,
  TPP_CALL_ERRORS,
  tppHeaderSchema,
} from '../shared/schemas.ts';
import { tppHeaders } from '../shared/tpp-app.ts';
import { CONSENT_BODY_OPTIONS, ConsentResponse } from './schemas.ts';

const ConsentBody = Type.Object(
  {
    access: Type.Literal('ALL_ACCOUNTS'),
    validUntil: Type.Optional(
      Type.String({ maxLength: 10, description: 'Last day of access (YYYY-MM-DD); at most 180 days ahead' }),
    ),
    frequencyPerDay: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: MAX_FREQUENCY_PER_DAY,
        description: 'Reads a day without the PSU present (no PSU-IP-Address), per account and resource',
      }),
    ),
  },
  CONSENT_BODY_OPTIONS,
);

const ConsentView = Type.Object({
  consentId: Type.String(),
  consentStatus: Type.String(),
  access: Type.Literal('ALL_ACCOUNTS'),
  validUntil: Type.String(),
  frequencyPerDay: Type.Integer(),
});

const ConsentParams = Type.Object({ consentId: Type.String({ maxLength: 64 }) });

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

/** How each API is named in summaries and operation ids. */
const NAMES: Record<AisApi, { readonly suffix: string; readonly api: string }> = {
  general: { suffix: '', api: 'general API' },
  gb: { suffix: 'Gb', api: 'Great Britain' },
  lu: { suffix: 'Lu', api: 'Luxembourg' },
};

export function consentRoutes(app: Api, context: ServiceContext, { route, limits }: Pipelines): void {
  for (const { api, prefix, consents } of AIS_APIS) {
    const live = () => ({ role: 'AIS' as const, products: consents });
    // Counted per address first, then the TPP headers and the token, then counted per app.
    const steps = [
      limits.apiAddress,
      tppHeaders(context, { country: 'path', live }),
      bearer(context),
      limits.apiApp,
    ];
    const call = (request: FastifyRequest) =>
      [
        tppOf(request).app,
        grantOf(request),
        api,
        (request.params as { consentId: string }).consentId,
      ] as const;
    const { suffix, api: apiName } = NAMES[api];
    const common = { tags: ['Consents'], security: BEARER, headers: tppHeaderSchema() };

    app.post(
      `${prefix}/consents`,
      route({
        onRequest: steps,
        schema: {
          ...common,
          summary: `Ask for a consent to read accounts (${apiName})`,
          description:
            "With a client-credentials token of scope AIS. The PSU approves it through the authorize endpoint (scope `AIS:<consentId>`); the code's token reads the accounts. PSU-ID names the PSU in advance (optional).",
          operationId: `createConsent${suffix}`,
          headers: tppHeaderSchema({
            keyed: true,
            extra: {
              'PSU-ID': Type.Optional(Type.String({ description: 'The PSU, when known in advance' })),
              ...subscriptionHeaders,
            },
          }),
          body: ConsentBody,
          response: {
            201: subscribingAnswer(
              ConsentResponse,
              'Created (received): the consentId and where the PSU approves',
            ),
            ...apiErrors(...TPP_CALL_ERRORS, ...KEYED_ERRORS, ...BODY_ERRORS),
          },
        },
        handler: async (request, reply) => {
          const tpp = tppOf(request);
          const notification = subscriptionFrom(context, request);
          const answer = await createAccountConsent(context, {
            app: tpp.app,
            grant: grantOf(request),
            idempotencyKey: idempotencyKeyOf(request),
            api,
            body: request.body as ConsentRequest,
            psuId: header(request, 'psu-id'),
            baseUrl: baseUrlOf(context.config, request),
            actor: auditActorOf(request),
            notification,
          });
          announceSubscription(reply, notification);
          return answerWith(reply, answer);
        },
      }),
    );

    app.get(
      `${prefix}/consents/:consentId`,
      route({
        onRequest: steps,
        schema: {
          ...common,
          summary: `Read a consent (${apiName})`,
          operationId: `getConsent${suffix}`,
          params: ConsentParams,
          response: { 200: answer(ConsentView, 'The consent'), ...apiErrors(...TPP_CALL_ERRORS) },
        },
        // Only reads: run once more when the database connection dies under it.
        retryReads: true,
        handler: async (request) => asBody(await readConsent(context, ...call(request))),
      }),
    );

    app.get(
      `${prefix}/consents/:consentId/status`,
      route({
        onRequest: steps,
        schema: {
          ...common,
          summary: `Read a consent's status (${apiName})`,
          description: 'received, valid, rejected, expired, revokedByPsu or terminatedByTpp',
          operationId: `getConsentStatus${suffix}`,
          params: ConsentParams,
          response: {
            200: answer(Type.Object({ consentStatus: Type.String() }), "The consent's status"),
            ...apiErrors(...TPP_CALL_ERRORS),
          },
        },
        retryReads: true,
        handler: async (request) => asBody(await readConsentStatus(context, ...call(request))),
      }),
    );

    app.delete(
      `${prefix}/consents/:consentId`,
      route({
        onRequest: steps,
        schema: {
          ...common,
          summary: `End a consent (${apiName})`,
          description: 'The consent becomes terminatedByTpp; its tokens read nothing more.',
          operationId: `deleteConsent${suffix}`,
          params: ConsentParams,
          response: {
            204: { description: 'Ended', type: 'null' },
            ...apiErrors(...TPP_CALL_ERRORS, ...BODY_ERRORS),
          },
        },
        handler: async (request, reply) => {
          await deleteConsent(context, ...call(request), auditActorOf(request));
          reply.code(204);
        },
      }),
    );
  }
}
