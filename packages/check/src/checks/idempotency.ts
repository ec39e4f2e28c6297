// A repeated TPP-Request-ID (API-NOTES "Headers"): the same request answers the first answer again and
// creates no second payment; another request under the same id is refused.
import { randomUUID } from 'node:crypto';
import { type Check, Deviation } from '../check.ts';
import { expectApiError } from '../error-shapes.ts';
import { expectString, jsonBody, shown } from '../expect.ts';
import { OTHER_BANK, otherBankBody, SE_V2_PRIVATE } from '../fixtures.ts';
import { initiate } from '../flow.ts';

const PATH = `${SE_V2_PRIVATE}/${OTHER_BANK}`;

export const idempotencyChecks: readonly Check[] = [
  {
    id: 'idempotency.replay',
    title: 'the same initiation under the same TPP-Request-ID answers the same payment',
    ref: 'API-NOTES Headers "A repeated TPP-Request-ID ... with the same body returns the first answer again"',
    needs: ['clientToken'],
    async run(context) {
      const headers = { 'TPP-Request-ID': randomUUID() };
      const body = otherBankBody(context.options);
      const initiation = { path: PATH, body, headers };
      const first = expectString(
        jsonBody(await initiate(context, context.fact('clientToken'), initiation), 200),
        'paymentId',
      );
      const again = jsonBody(await initiate(context, context.fact('clientToken'), initiation), 200, 'again');
      if (again.paymentId !== first) {
        throw new Deviation(`paymentId ${first} again`, `paymentId ${shown(again.paymentId)}`);
      }
    },
  },
  {
    id: 'idempotency.request-id-reused',
    title: 'another initiation under a used TPP-Request-ID is refused',
    ref: 'API-NOTES Headers "with a different body it is refused (409, code REQUEST_ID_REUSED)"',
    needs: ['clientToken'],
    async run(context) {
      const headers = { 'TPP-Request-ID': randomUUID() };
      const token = context.fact('clientToken');
      jsonBody(
        await initiate(context, token, { path: PATH, body: otherBankBody(context.options), headers }),
        200,
      );
      const other = otherBankBody(context.options, {
        instructedAmount: { currency: 'SEK', amount: '101.00' },
      });
      expectApiError(await initiate(context, token, { path: PATH, body: other, headers }), {
        status: 409,
        codes: ['REQUEST_ID_REUSED'],
      });
    },
  },
];
