// Swedish payments v1 was decommissioned on 15 November 2026: 410 Gone, naming the v2 path.
import { Type } from '@sinclair/typebox';
import { sendApiError } from '../../http/errors.ts';
import type { Api } from '../shared/api.ts';
import { apiErrors } from '../shared/schemas.ts';

/** The v2 path that replaces a v1 path (single payments moved under private|corporate/single). */
export function v2PathFor(rest: string): string {
  const single = /^payments\/([^/]+)$/.exec(rest);
  if (single !== null) return `/psd2/se/v2/payments/{private|corporate}/single/${single[1]}`;
  return `/psd2/se/v2/${rest}`;
}

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

export function seV1Routes(app: Api): void {
  for (const method of METHODS) {
    app.route({
      method,
      url: '/psd2/se/v1/*',
      schema: {
        summary: 'Swedish payments, version 1: decommissioned on 15 November 2026',
        description: 'Every call answers 410; the error names the version 2 path to use instead.',
        operationId: `seV1Decommissioned${method[0]}${method.slice(1).toLowerCase()}`,
        tags: ['Payments'],
        deprecated: true,
        params: Type.Object({ '*': Type.String({ description: 'The rest of the path' }) }),
        response: apiErrors(410),
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
    });
  }
}
