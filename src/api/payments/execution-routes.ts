// Execute: PUT /psd2/v1/payments/{paymentProduct}/{paymentId}; status: GET .../{paymentId}/status with
// the Country header. Both also under the Sweden v2 prefix, where the country is SE.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { bearer } from '../../http/bearer.ts';
import { grantOf, tppOf } from '../../http/request-context.ts';
import { tppHeaders } from '../../http/tpp-headers.ts';
import { PAYMENT_PRODUCTS_ALL } from '../../services/access/live-access.ts';
import { cancelPayment } from '../../services/payments/cancellation.ts';
import { executePayment } from '../../services/payments/execution.ts';
import { readPaymentStatus } from '../../services/payments/status.ts';
import type { ServiceContext } from '../../services/shared/context.ts';
import { ExecuteResponseSchema, PaymentParams, StatusResponseSchema } from './schemas.ts';

type Params = { Params: { paymentProduct: string; paymentId: string } };

/** What execute and cancel are asked: the app, token, request id and the payment of the path. */
function paymentCall(request: FastifyRequest<Params>) {
  const tpp = tppOf(request);
  return {
    app: tpp.app,
    grant: grantOf(request),
    requestId: tpp.requestId,
    productName: request.params.paymentProduct,
    paymentId: request.params.paymentId,
  };
}

/** Live mode: execute, status and cancel act on payments of any payment product. */
const anyPayments = () => ({ role: 'PIS' as const, products: PAYMENT_PRODUCTS_ALL });

export function executeStatusRoutes(app: FastifyInstance, context: ServiceContext): void {
  const prefixes = [
    ['/psd2/v1/payments', undefined],
    ['/psd2/se/v2/payments', 'SE'],
    ['/psd2/gb/v1/payments', 'GB'],
    ['/psd2/lu/v1/payments', 'LU'],
  ] as const;
  for (const [prefix, pathCountry] of prefixes) {
    const general = pathCountry === undefined;

    app.put<Params>(
      `${prefix}/:paymentProduct/:paymentId`,
      {
        onRequest: [
          tppHeaders(context, { country: 'path', psuPresent: true, live: anyPayments }),
          bearer(context),
        ],
        schema: { params: PaymentParams, response: { 200: ExecuteResponseSchema } },
      },
      async (request, reply) => {
        const answer = await executePayment(context, paymentCall(request));
        return reply.code(answer.statusCode).send(answer.body);
      },
    );

    app.delete<Params>(
      `${prefix}/:paymentProduct/:paymentId`,
      {
        onRequest: [tppHeaders(context, { country: 'path', live: anyPayments }), bearer(context)],
        schema: { params: PaymentParams, response: { 200: StatusResponseSchema } },
      },
      async (request, reply) => {
        const answer = await cancelPayment(context, paymentCall(request));
        return reply.code(answer.statusCode).send(answer.body);
      },
    );

    app.get<Params>(
      `${prefix}/:paymentProduct/:paymentId/status`,
      {
        onRequest: [
          tppHeaders(context, { country: general ? 'header' : 'path', live: anyPayments }),
          bearer(context),
        ],
        schema: { params: PaymentParams, response: { 200: StatusResponseSchema } },
      },
      (request) => {
        const tpp = tppOf(request);
        return readPaymentStatus(context, {
          app: tpp.app,
          grant: grantOf(request),
          productName: request.params.paymentProduct,
          paymentId: request.params.paymentId,
          country: pathCountry ?? tpp.country!,
        });
      },
    );
  }
}
