// Swedish payments v1 was decommissioned on 15 November 2026: 410 Gone, naming the v2 path.
import { Type } from '@sinclair/typebox';
import { findProduct } from '../../domain/products.ts';
import { sendApiError } from '../../http/errors.ts';
import type { Api } from '../shared/api.ts';
import type { Pipelines } from '../shared/pipeline.ts';
import { apiErrors, BODY_ERRORS } from '../shared/schemas.ts';

/** Segments of a v1 path that are the contract's words, named as they are in the v2 path. */
const WORDS = new Set([
  'payments',
  'status',
  'signing-basket',
  'signing-baskets',
  'accounts',
  'shorttermconsents',
]);

/**
 * The v2 path that replaces a v1 path (single payments moved under private|corporate/single). The
 * path is the caller's text: a segment that is not a product or a word of the contract is named by
 * its role ({paymentProduct}, {id}), never repeated.
 */
function v2PathFor(rest: string): string {
  const segments = rest.split('/');
  const named = segments.map((segment, index) => {
    if (WORDS.has(segment)) return segment;
    if (findProduct(segment) !== undefined) return segment;
    return index === 1 && segments[0] === 'payments' ? '{paymentProduct}' : '{id}';
  });
  if (segments.length === 2 && segments[0] === 'payments')
    return `/psd2/se/v2/payments/{private|corporate}/single/${named[1]}`;
  return `/psd2/se/v2/${named.join('/')}`;
}

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

export function seV1Routes(app: Api, { route }: Pipelines): void {
  for (const method of METHODS) {
    app.route({
      method,
      url: '/psd2/se/v1/*',
      ...route({
        schema: {
          summary: 'Swedish payments, version 1: decommissioned on 15 November 2026',
          description:
            'Every call answers 410; the error names the version 2 path to use instead. A path or query with text no database holds answers 400.',
          operationId: `seV1Decommissioned${method[0]}${method.slice(1).toLowerCase()}`,
          tags: ['Payments'],
          deprecated: true,
          params: Type.Object({ '*': Type.String({ description: 'The rest of the path' }) }),
          response: apiErrors(400, 410, ...BODY_ERRORS),
        },
        handler: (request, reply) => {
          const v2 = v2PathFor(request.params['*']);
          return sendApiError(reply, 410, [
            {
              code: 'SERVICE_INVALID',
              path: v2,
              text: `Version 1 of the Swedish payment API was decommissioned on 15 November 2026: use ${v2}`,
            },
          ]);
        },
      }),
    });
  }
}
