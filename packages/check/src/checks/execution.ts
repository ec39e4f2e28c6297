// Steps 4 and 5: execute with the PSU token (spec row 12) and read the status with either token (spec
// row 13); which token may do what (spec Additional rules 1, Authentication 5).
import { type Check, type CheckContext, Deviation } from '../check.ts';
import { expectApiError } from '../error-shapes.ts';
import { expectOneOf, expectValue, jsonBody } from '../expect.ts';
import { countryOf, OTHER_BANK, SEPA } from '../fixtures.ts';
import { execute, readStatus } from '../flow.ts';
import type { Answer } from '../http.ts';

/** What execution may answer in the sandbox: "Payments executed there always succeed" (no RJCT). */
export const EXECUTED = ['ACCC', 'ACCP', 'ACSC'] as const;
const TOKEN_INVALID = { status: 401, codes: ['TOKEN_INVALID'] } as const;
/** The execute and status tables' spelling of the other-bank product. */
const OTHER_BANK_S = 'other-banks-domestic-credit-transfer';
const ROW_13 = 'spec row 13 "200: paymentId, transactionStatus"';

/** An execute or status answer: this payment (or basket) and a status of the contract. */
export function expectPaymentStatus(
  answer: Answer,
  idField: string,
  id: string,
  allowed: readonly string[],
): string {
  const body = jsonBody(answer, 200);
  expectValue(body, idField, id);
  return expectOneOf(body, 'transactionStatus', allowed);
}

/** A call on the executed payment (sePayment) with a token: it answers the status execution answered. */
function executedRead(
  id: string,
  title: string,
  ref: string,
  token: 'clientToken' | 'psuToken',
  call: (context: CheckContext, token: string) => Promise<Answer>,
): Check {
  return {
    id,
    title,
    ref,
    needs: ['executedStatus', token],
    async run(context) {
      const answer = await call(context, context.fact(token));
      const status = expectPaymentStatus(answer, 'paymentId', context.fact('sePayment'), EXECUTED);
      const executed = context.fact('executedStatus');
      if (status !== executed) {
        throw new Deviation(`transactionStatus ${executed}, as executed`, `transactionStatus ${status}`);
      }
    },
  };
}

export const executionChecks: readonly Check[] = [
  {
    id: 'execute.client-token-refused',
    title: 'the client-credentials token cannot execute',
    ref: 'spec row 12 "Authorization (PSU token)"; Additional rules 1 "used only for initiation (and optionally status)"',
    needs: ['sePayment', 'clientToken'],
    async run(context) {
      const answer = await execute(
        context,
        OTHER_BANK,
        context.fact('sePayment'),
        context.fact('clientToken'),
      );
      expectApiError(answer, TOKEN_INVALID);
    },
  },
  {
    id: 'execute.other-payment-token',
    title: 'a PSU token cannot execute another payment',
    ref: 'spec Authentication 5 "A PSU token is valid only for the scope" (scope PIS:<payment_id>)',
    needs: ['generalPayment', 'psuToken'],
    async run(context) {
      const answer = await execute(context, SEPA, context.fact('generalPayment'), context.fact('psuToken'));
      expectApiError(answer, TOKEN_INVALID);
    },
  },
  {
    id: 'execute.psu-token',
    title: 'the PSU token executes the payment',
    ref: 'spec row 12 "200: paymentId ... and transactionStatus"; States "one of ACCC, ACCP, ACSC, RJCT", sandbox "RJCT never results"',
    needs: ['sePayment', 'psuToken'],
    provides: ['executedStatus'],
    async run(context) {
      const answer = await execute(context, OTHER_BANK, context.fact('sePayment'), context.fact('psuToken'));
      context.provide(
        'executedStatus',
        expectPaymentStatus(answer, 'paymentId', context.fact('sePayment'), EXECUTED),
      );
    },
  },
  executedRead(
    'execute.repeat',
    'executing again answers the same status',
    'API-NOTES Statuses "Executing an executed payment again returns its status unchanged"',
    'psuToken',
    (context, token) => execute(context, OTHER_BANK, context.fact('sePayment'), token),
  ),
  {
    id: 'status.before-execution',
    title: 'an authorized payment not yet executed is ACTC (client-credentials token)',
    ref: `${ROW_13}; API-NOTES Statuses "transactionStatus changes only when the TPP executes (PUT)"`,
    needs: ['generalPayment', 'clientToken'],
    async run(context) {
      const payment = context.fact('generalPayment');
      const answer = await readStatus(
        context,
        SEPA,
        payment,
        context.fact('clientToken'),
        countryOf(context.options),
      );
      expectPaymentStatus(answer, 'paymentId', payment, ['ACTC']);
    },
  },
  executedRead(
    'status.after-execution',
    'the status after execution is the executed one (client-credentials token)',
    `${ROW_13}; step 5 "TPP reads the payment status with either the client-credentials token or the PSU token"`,
    'clientToken',
    (context, token) => readStatus(context, OTHER_BANK, context.fact('sePayment'), token, 'SE'),
  ),
  executedRead(
    'status.psu-token',
    'the PSU token reads the status',
    'spec row 13 "Authorization accepts either the client-credentials token or the PSU token"',
    'psuToken',
    (context, token) => readStatus(context, OTHER_BANK, context.fact('sePayment'), token, 'SE'),
  ),
  executedRead(
    'status.other-banks-spelling',
    'status takes the product spelt other-banks-domestic-credit-transfer',
    'spec Payment products "In the execute and status request parameter tables the other-bank product is written other-banks-domestic-credit-transfer"',
    'clientToken',
    (context, token) => readStatus(context, OTHER_BANK_S, context.fact('sePayment'), token, 'SE'),
  ),
  {
    id: 'status.missing-country',
    title: 'a status read without Country is refused',
    ref: 'spec row 13 "Country (required)"; API-NOTES Error bodies "400 FORMAT_ERROR"',
    needs: ['sePayment', 'clientToken'],
    async run(context) {
      const answer = await readStatus(
        context,
        OTHER_BANK,
        context.fact('sePayment'),
        context.fact('clientToken'),
        undefined,
      );
      expectApiError(answer, { status: 400, codes: ['FORMAT_ERROR'] });
    },
  },
  {
    id: 'status.unknown-payment',
    title: 'the status of an unknown payment is RESOURCE_UNKNOWN',
    ref: 'API-NOTES Error bodies "404 PRODUCT_UNKNOWN, RESOURCE_UNKNOWN"',
    needs: ['clientToken'],
    async run(context) {
      const answer = await readStatus(
        context,
        OTHER_BANK,
        'no-such-payment',
        context.fact('clientToken'),
        'SE',
      );
      expectApiError(answer, { status: 404, codes: ['RESOURCE_UNKNOWN'] });
    },
  },
];
