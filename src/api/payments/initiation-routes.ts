// POST /psd2/v1/payments/{paymentProduct} (general API, Country header) and
// POST /psd2/se/v2/payments/{private|corporate}/single/{paymentProduct} (Sweden v2), GB and LU (country
// in the path), and the Swedish signing basket.

import type { FastifyRequest } from 'fastify';
import { apiError } from '../../domain/errors.ts';
import type { CustomerType } from '../../domain/products.ts';
import { auditActorOf } from '../../http/audit-actor.ts';
import { idempotencyKeyOf } from '../../http/idempotency-key.ts';
import { grantOf, tppOf } from '../../http/request-context.ts';
import { corporateHeaders } from '../../http/tpp-headers.ts';
import { initiateBasket } from '../../services/payments/basket-initiation.ts';
import { type Channel, initiatePayment } from '../../services/payments/initiation.ts';
import type { ServiceContext } from '../../services/shared/context.ts';
import { baseUrlOf } from '../base-url.ts';
import {
  announceSubscription,
  subscribingAnswer,
  subscriptionFrom,
  subscriptionHeaders,
} from '../notifications/subscribing.ts';
import { type Api, answerWith } from '../shared/api.ts';
import { bearer } from '../shared/bearer.ts';
import type { Pipelines } from '../shared/pipeline.ts';
import {
  apiErrors,
  BEARER,
  BODY_ERRORS,
  KEYED_ERRORS,
  TPP_CALL_ERRORS,
  tppHeaderSchema,
} from '../shared/schemas.ts';
import { tppHeaders } from '../shared/tpp-app.ts';
import {
  BasketBodySchema,
  BasketResponseSchema,
  InitiationResponseSchema,
  type PaymentBodyInput,
  PaymentBodySchema,
  ProductParams,
  SeV2InitiationParams,
} from './schemas.ts';

const CUSTOMER_TYPES: readonly string[] = ['private', 'corporate'];

/** Live mode: the PIS role and a subscription to the path's product. */
const pis = (product: string) => () => ({ role: 'PIS' as const, products: [product] });
const seV2Product = (request: FastifyRequest) =>
  pis(`payments-se-${(request.params as { customerType?: string }).customerType ?? 'private'}`)();

/** What an initiation answers: the payment and its SCA methods, or an error. */
const INITIATION_ANSWERS = {
  200: subscribingAnswer(
    InitiationResponseSchema,
    'Initiated (ACTC): the paymentId and where the PSU authorizes',
  ),
  ...apiErrors(...TPP_CALL_ERRORS, ...KEYED_ERRORS, ...BODY_ERRORS),
};

export function paymentInitiationRoutes(
  app: Api,
  context: ServiceContext,
  { route, limits }: Pipelines,
): void {
  // Signing baskets for private and corporate customers (API-NOTES "Paths and prefixes"): corporate PSUs
  // send PSU-Corporate-ID and PSU-Corporate-ID-Type, and pay from that corporate's accounts.
  for (const customerType of ['private', 'corporate'] as const) {
    const corporate = customerType === 'corporate';
    app.post(
      `/psd2/se/v2/payments/${customerType}/signing-basket`,
      route({
        onRequest: [
          limits.apiAddress,
          tppHeaders(context, {
            country: 'path',
            psuPresent: true,
            live: pis(`payments-se-${customerType}`),
          }),
          bearer(context),
          limits.apiApp,
        ],
        schema: {
          summary: `Initiate a signing basket (Sweden, ${customerType} customers)`,
          description: `Several payments signed and executed together: authorize with scope \`PIS:<signingBaskedId>\`, execute PUT /psd2/v1/payments/{any product of the basket}/{signingBaskedId} and read its status at .../{signingBaskedId}/status; all are booked or none.${corporate ? " Corporate PSUs send PSU-Corporate-ID and PSU-Corporate-ID-Type: BANK, and pay from that corporate's accounts." : ''}`,
          operationId: corporate ? 'initiateCorporateBasket' : 'initiateBasket',
          tags: ['Signing baskets'],
          security: BEARER,
          headers: tppHeaderSchema({
            psuPresent: true,
            keyed: true,
            ...(corporate ? { corporate: true } : {}),
            extra: subscriptionHeaders,
          }),
          body: BasketBodySchema,
          response: {
            200: subscribingAnswer(
              BasketResponseSchema,
              'Initiated: one paymentId per payment, and the basket id',
            ),
            ...apiErrors(...TPP_CALL_ERRORS, ...KEYED_ERRORS, ...BODY_ERRORS),
          },
        },
        handler: async (request, reply) => {
          const tpp = tppOf(request);
          const notification = subscriptionFrom(context, request);
          const answer = await initiateBasket(context, {
            app: tpp.app,
            grant: grantOf(request),
            idempotencyKey: idempotencyKeyOf(request),
            customerType,
            payments: request.body.payments,
            corporate: corporateHeaders(request),
            actor: auditActorOf(request),
            notification,
          });
          announceSubscription(reply, notification);
          return answerWith(reply, answer);
        },
      }),
    );
  }

  const initiate = async (request: FastifyRequest, reply: object, channel: Channel, productName: string) => {
    const tpp = tppOf(request);
    const notification = subscriptionFrom(context, request);
    const answer = await initiatePayment(context, {
      app: tpp.app,
      grant: grantOf(request),
      idempotencyKey: idempotencyKeyOf(request),
      channel,
      productName,
      body: request.body as PaymentBodyInput,
      corporate: corporateHeaders(request),
      baseUrl: baseUrlOf(context.config, request),
      actor: auditActorOf(request),
      notification,
    });
    announceSubscription(reply, notification);
    return answerWith(reply, answer);
  };

  app.post(
    '/psd2/v1/payments/:paymentProduct',
    route({
      onRequest: [
        limits.apiAddress,
        tppHeaders(context, { country: 'header', psuPresent: true, live: pis('payments') }),
        bearer(context),
        limits.apiApp,
      ],
      schema: {
        summary: 'Initiate a payment (general API: the country in the Country header)',
        description:
          'Step 2 of the payment flow, with a client-credentials token of scope PIS. The only form for the Netherlands.',
        operationId: 'initiatePayment',
        tags: ['Payments'],
        security: BEARER,
        params: ProductParams,
        headers: tppHeaderSchema({
          country: true,
          psuPresent: true,
          corporate: true,
          keyed: true,
          extra: subscriptionHeaders,
        }),
        body: PaymentBodySchema,
        response: INITIATION_ANSWERS,
      },
      handler: (request, reply) =>
        initiate(
          request,
          reply,
          { api: 'general', country: tppOf(request).country! },
          request.params.paymentProduct,
        ),
    }),
  );

  // The country APIs of Great Britain and Luxembourg (spec row 7): the country is in the path.
  for (const country of ['GB', 'LU'] as const) {
    app.post(
      `/psd2/${country.toLowerCase()}/v1/payments/:paymentProduct`,
      route({
        onRequest: [
          limits.apiAddress,
          tppHeaders(context, {
            country: 'path',
            psuPresent: true,
            live: pis(`payments-${country.toLowerCase()}`),
          }),
          bearer(context),
          limits.apiApp,
        ],
        schema: {
          summary: `Initiate a payment (${country === 'GB' ? 'Great Britain' : 'Luxembourg'} API)`,
          operationId: `initiatePayment${country === 'GB' ? 'Gb' : 'Lu'}`,
          tags: ['Payments'],
          security: BEARER,
          params: ProductParams,
          headers: tppHeaderSchema({
            psuPresent: true,
            corporate: true,
            keyed: true,
            extra: subscriptionHeaders,
          }),
          body: PaymentBodySchema,
          response: INITIATION_ANSWERS,
        },
        handler: (request, reply) =>
          initiate(request, reply, { api: 'country', country }, request.params.paymentProduct),
      }),
    );
  }

  app.post(
    '/psd2/se/v2/payments/:customerType/single/:paymentProduct',
    route({
      onRequest: [
        limits.apiAddress,
        tppHeaders(context, { country: 'path', psuPresent: true, live: seV2Product }),
        bearer(context),
        limits.apiApp,
      ],
      schema: {
        summary: 'Initiate a single payment (Sweden v2, private or corporate)',
        description:
          'Corporate PSUs send PSU-Corporate-ID and PSU-Corporate-ID-Type: BANK. sek-credit-transfer is for baskets only.',
        operationId: 'initiateSeV2Payment',
        tags: ['Payments'],
        security: BEARER,
        params: SeV2InitiationParams,
        headers: tppHeaderSchema({
          psuPresent: true,
          corporate: true,
          keyed: true,
          extra: subscriptionHeaders,
        }),
        body: PaymentBodySchema,
        response: INITIATION_ANSWERS,
      },
      handler: (request, reply) => {
        const { customerType, paymentProduct } = request.params;
        if (!CUSTOMER_TYPES.includes(customerType)) {
          throw apiError(
            'RESOURCE_UNKNOWN',
            'There is no endpoint for this customer type: use private or corporate',
          );
        }
        return initiate(
          request,
          reply,
          { api: 'se-v2', customerType: customerType as CustomerType },
          paymentProduct,
        );
      },
    }),
  );
}
