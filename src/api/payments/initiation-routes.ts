// POST /psd2/v1/payments/{paymentProduct} (general API, Country header) and
// POST /psd2/se/v2/payments/{private|corporate}/single/{paymentProduct} (Sweden v2).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { apiError } from '../../domain/errors.ts';
import type { CustomerType } from '../../domain/products.ts';
import { bearer } from '../../http/bearer.ts';
import { grantOf, tppOf } from '../../http/request-context.ts';
import { corporateHeaders, tppHeaders } from '../../http/tpp-headers.ts';
import { initiateBasket } from '../../services/payments/basket-initiation.ts';
import { type Channel, initiatePayment } from '../../services/payments/initiation.ts';
import type { ServiceContext } from '../../services/shared/context.ts';
import { baseUrlOf } from '../base-url.ts';
import {
  type BasketBodyInput,
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

export function initiateRoutes(app: FastifyInstance, context: ServiceContext): void {
  app.post<{ Body: BasketBodyInput }>(
    '/psd2/se/v2/payments/private/signing-basket',
    {
      onRequest: [
        tppHeaders(context, { country: 'path', psuPresent: true, live: pis('payments-se-private') }),
        bearer(context),
      ],
      schema: { body: BasketBodySchema, response: { 200: BasketResponseSchema } },
    },
    async (request, reply) => {
      const tpp = tppOf(request);
      const answer = await initiateBasket(context, {
        app: tpp.app,
        grant: grantOf(request),
        requestId: tpp.requestId,
        payments: request.body.payments,
        corporate: corporateHeaders(request),
      });
      return reply.code(answer.statusCode).send(answer.body);
    },
  );
  app.post(
    '/psd2/se/v2/payments/corporate/signing-basket',
    {
      onRequest: [
        tppHeaders(context, { country: 'path', psuPresent: true, live: pis('payments-se-corporate') }),
        bearer(context),
      ],
    },
    () => {
      throw apiError('PRODUCT_INVALID', 'signing baskets are offered to private customers only');
    },
  );

  const initiate = async (
    request: FastifyRequest,
    reply: FastifyReply,
    channel: Channel,
    productName: string,
  ) => {
    const tpp = tppOf(request);
    const answer = await initiatePayment(context, {
      app: tpp.app,
      grant: grantOf(request),
      requestId: tpp.requestId,
      channel,
      productName,
      body: request.body as PaymentBodyInput,
      corporate: corporateHeaders(request),
      baseUrl: baseUrlOf(context.config, request),
    });
    return reply.code(answer.statusCode).send(answer.body);
  };

  app.post<{ Params: { paymentProduct: string }; Body: PaymentBodyInput }>(
    '/psd2/v1/payments/:paymentProduct',
    {
      onRequest: [
        tppHeaders(context, { country: 'header', psuPresent: true, live: pis('payments') }),
        bearer(context),
      ],
      schema: { params: ProductParams, body: PaymentBodySchema, response: { 200: InitiationResponseSchema } },
    },
    (request, reply) =>
      initiate(
        request,
        reply,
        { api: 'general', country: tppOf(request).country! },
        request.params.paymentProduct,
      ),
  );

  // The country APIs of Great Britain and Luxembourg (spec row 7): the country is in the path.
  for (const country of ['GB', 'LU'] as const) {
    app.post<{ Params: { paymentProduct: string }; Body: PaymentBodyInput }>(
      `/psd2/${country.toLowerCase()}/v1/payments/:paymentProduct`,
      {
        onRequest: [
          tppHeaders(context, {
            country: 'path',
            psuPresent: true,
            live: pis(`payments-${country.toLowerCase()}`),
          }),
          bearer(context),
        ],
        schema: {
          params: ProductParams,
          body: PaymentBodySchema,
          response: { 200: InitiationResponseSchema },
        },
      },
      (request, reply) =>
        initiate(request, reply, { api: 'country', country }, request.params.paymentProduct),
    );
  }

  app.post<{ Params: { customerType: string; paymentProduct: string }; Body: PaymentBodyInput }>(
    '/psd2/se/v2/payments/:customerType/single/:paymentProduct',
    {
      onRequest: [
        tppHeaders(context, { country: 'path', psuPresent: true, live: seV2Product }),
        bearer(context),
      ],
      schema: {
        params: SeV2InitiationParams,
        body: PaymentBodySchema,
        response: { 200: InitiationResponseSchema },
      },
    },
    (request, reply) => {
      const { customerType, paymentProduct } = request.params;
      if (!CUSTOMER_TYPES.includes(customerType)) {
        throw apiError(
          'RESOURCE_UNKNOWN',
          `There is no endpoint for customer type "${customerType}": use private or corporate`,
        );
      }
      return initiate(
        request,
        reply,
        { api: 'se-v2', customerType: customerType as CustomerType },
        paymentProduct,
      );
    },
  );
}
