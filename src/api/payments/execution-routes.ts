// Execute: PUT /psd2/v1/payments/{paymentProduct}/{paymentId}; cancel: DELETE on the same path; status:
// GET .../{paymentId}/status with the Country header. All also under the Sweden v2, GB and LU prefixes,
// where the country is in the path.
import type { FastifyRequest } from 'fastify';
import { auditActorOf } from '../../http/audit-actor.ts';
import { idempotencyKeyOf } from '../../http/idempotency-key.ts';
import { grantOf, tppOf } from '../../http/request-context.ts';
import { PAYMENT_PRODUCTS_ALL } from '../../services/access/live-access.ts';
import { cancelPayment } from '../../services/payments/cancellation.ts';
import { executePayment } from '../../services/payments/execution.ts';
import { readPaymentStatus } from '../../services/payments/status.ts';
import type { ServiceContext } from '../../services/shared/context.ts';
import { type Api, answerWith } from '../shared/api.ts';
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
import { ExecuteResponseSchema, PaymentParams, StatusResponseSchema } from './schemas.ts';

/**
 * What execute and cancel are asked: the app, token, Idempotency-Key and the payment of the path, and
 * who asks (for the audit records of the moves).
 */
function paymentCall(request: FastifyRequest) {
  const tpp = tppOf(request);
  const params = request.params as { paymentProduct: string; paymentId: string };
  return {
    app: tpp.app,
    grant: grantOf(request),
    idempotencyKey: idempotencyKeyOf(request),
    productName: params.paymentProduct,
    paymentId: params.paymentId,
    actor: auditActorOf(request),
  };
}

/** Live mode: execute, status and cancel act on payments of any payment product. */
const anyPayments = () => ({ role: 'PIS' as const, products: PAYMENT_PRODUCTS_ALL });

const PREFIXES = [
  { prefix: '/psd2/v1/payments', country: undefined, name: '', api: 'general API' },
  { prefix: '/psd2/se/v2/payments', country: 'SE', name: 'SeV2', api: 'Sweden v2' },
  { prefix: '/psd2/gb/v1/payments', country: 'GB', name: 'Gb', api: 'Great Britain' },
  { prefix: '/psd2/lu/v1/payments', country: 'LU', name: 'Lu', api: 'Luxembourg' },
] as const;

export function paymentExecutionRoutes(
  app: Api,
  context: ServiceContext,
  { route, limits }: Pipelines,
): void {
  for (const { prefix, country: pathCountry, name, api } of PREFIXES) {
    const general = pathCountry === undefined;

    app.put(
      `${prefix}/:paymentProduct/:paymentId`,
      route({
        onRequest: [
          limits.apiAddress,
          tppHeaders(context, { country: 'path', psuPresent: true, live: anyPayments }),
          bearer(context),
          limits.apiApp,
        ],
        schema: {
          summary: `Execute an authorized payment or basket (${api})`,
          description:
            "Step 4, with the PSU's token for `PIS:<paymentId>`. No body. Answers the status the booking reached: ACCC, ACSC or ACCP, or RJCT with reasonCode; a basket answers signingBasketId. Executing an executed payment answers its status again (no second booking); a retry under the same Idempotency-Key answers the first answer.",
          operationId: `executePayment${name}`,
          tags: ['Payments'],
          security: BEARER,
          params: PaymentParams,
          headers: tppHeaderSchema({ psuPresent: true, keyed: true }),
          response: {
            200: answer(ExecuteResponseSchema, 'Executed: the status it reached'),
            ...apiErrors(...TPP_CALL_ERRORS, ...KEYED_ERRORS, ...BODY_ERRORS),
          },
        },
        handler: async (request, reply) =>
          answerWith(reply, await executePayment(context, paymentCall(request))),
      }),
    );

    app.delete(
      `${prefix}/:paymentProduct/:paymentId`,
      route({
        onRequest: [
          limits.apiAddress,
          tppHeaders(context, { country: 'path', live: anyPayments }),
          bearer(context),
          limits.apiApp,
        ],
        schema: {
          summary: `Cancel a payment not yet executed (${api})`,
          description:
            'With the client-credentials token that initiated it, or the PSU token: an initiated or authorized payment becomes CANC; one executed or being booked cannot be cancelled (405).',
          operationId: `cancelPayment${name}`,
          tags: ['Payments'],
          security: BEARER,
          params: PaymentParams,
          headers: tppHeaderSchema({ keyed: true }),
          response: {
            200: answer(StatusResponseSchema, 'Cancelled: CANC'),
            ...apiErrors(...TPP_CALL_ERRORS, 405, ...KEYED_ERRORS, ...BODY_ERRORS),
          },
        },
        handler: async (request, reply) =>
          answerWith(reply, await cancelPayment(context, paymentCall(request))),
      }),
    );

    app.get(
      `${prefix}/:paymentProduct/:paymentId/status`,
      route({
        onRequest: [
          limits.apiAddress,
          tppHeaders(context, { country: general ? 'header' : 'path', live: anyPayments }),
          bearer(context),
          limits.apiApp,
        ],
        schema: {
          summary: `Read a payment's status (${api})`,
          description:
            "Step 5, with the client-credentials token or the PSU token. A signing basket's id answers signingBasketId and the least advanced status of its payments.",
          operationId: `getPaymentStatus${name}`,
          tags: ['Payments'],
          security: BEARER,
          params: PaymentParams,
          headers: tppHeaderSchema({ country: general }),
          response: {
            200: answer(
              ExecuteResponseSchema,
              "The payment's status; for a basket's id, signingBasketId and the basket's status",
            ),
            ...apiErrors(...TPP_CALL_ERRORS),
          },
        },
        // Only reads: run once more when the database connection dies under it.
        retryReads: true,
        handler: async (request) => {
          const tpp = tppOf(request);
          return readPaymentStatus(context, {
            app: tpp.app,
            grant: grantOf(request),
            productName: request.params.paymentProduct,
            paymentId: request.params.paymentId,
            country: pathCountry ?? tpp.country!,
          });
        },
      }),
    );
  }
}
