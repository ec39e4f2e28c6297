// Idempotent retries (API-NOTES "Headers"): the same initiation under the same Idempotency-Key answers
// the first answer again and creates no second payment; another request under the key is refused (422).
// TPP-Request-ID is a correlation id only: the same value on two initiations makes two payments.
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
    title: 'the same initiation under the same Idempotency-Key answers the same payment',
    ref: 'API-NOTES Headers "the same key from the same app on the same operation with the same body returns the first answer again"',
    needs: ['clientToken'],
    async run(context) {
      const headers = { 'Idempotency-Key': `"${randomUUID()}"` };
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
    id: 'idempotency.key-reused',
    title: 'another initiation under a used Idempotency-Key is refused',
    ref: 'API-NOTES Headers "with another body 422"',
    needs: ['clientToken'],
    async run(context) {
      const headers = { 'Idempotency-Key': `"${randomUUID()}"` };
      const token = context.fact('clientToken');
      jsonBody(
        await initiate(context, token, { path: PATH, body: otherBankBody(context.options), headers }),
        200,
      );
      const other = otherBankBody(context.options, {
        instructedAmount: { currency: 'SEK', amount: '101.00' },
      });
      expectApiError(await initiate(context, token, { path: PATH, body: other, headers }), {
        status: 422,
        codes: ['IDEMPOTENCY_KEY_REUSED'],
      });
    },
  },
  {
    id: 'idempotency.request-id-correlation',
    title: 'one TPP-Request-ID on two initiations makes two payments',
    ref: 'API-NOTES Headers "a repeated TPP-Request-ID creates a new resource like any other request"',
    needs: ['clientToken'],
    async run(context) {
      const headers = { 'TPP-Request-ID': randomUUID() };
      const token = context.fact('clientToken');
      const initiation = { path: PATH, body: otherBankBody(context.options), headers };
      const first = expectString(jsonBody(await initiate(context, token, initiation), 200), 'paymentId');
      const second = expectString(
        jsonBody(await initiate(context, token, initiation), 200, 'again'),
        'paymentId',
      );
      if (second === first) throw new Deviation('a second paymentId', `paymentId ${first} again`);
    },
  },
];
