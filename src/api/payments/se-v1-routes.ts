// Swedish payments v1 was decommissioned on 15 November 2026: 410 Gone, naming the v2 path.
import type { FastifyInstance } from 'fastify';
import { sendApiError } from '../../http/errors.ts';

/** The v2 path that replaces a v1 path (single payments moved under private|corporate/single). */
export function v2PathFor(rest: string): string {
  const single = /^payments\/([^/]+)$/.exec(rest);
  if (single !== null) return `/psd2/se/v2/payments/{private|corporate}/single/${single[1]}`;
  return `/psd2/se/v2/${rest}`;
}

export function seV1Routes(app: FastifyInstance): void {
  app.all('/psd2/se/v1/*', (request, reply) => {
    const rest = (request.params as { '*': string })['*'];
    const v2 = v2PathFor(rest);
    return sendApiError(reply, 410, [
      {
        code: 'SERVICE_INVALID',
        path: v2,
        text: `Version 1 of the Swedish payment API was decommissioned on 15 November 2026: use ${v2}`,
      },
    ]);
  });
}
