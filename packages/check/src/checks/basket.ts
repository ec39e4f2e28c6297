// Signing baskets (Sweden v2; spec Resources "Basket response", Additional rules 2): several payments
// initiated together, authorized and executed under the basket identifier.
import { type Check, Deviation } from '../check.ts';
import { expectApiError } from '../error-shapes.ts';
import { expectAbsent, expectArray, expectString, jsonBody, shown } from '../expect.ts';
import { basketBody, OTHER_BANK, otherBankBody, SE_V2_BASKET, SEK_TRANSFER } from '../fixtures.ts';
import { execute, postJson, setupPsuToken } from '../flow.ts';
import { EXECUTED, expectPaymentStatus } from './execution.ts';

const RULE_2 =
  'Additional rules 2 "the basket identifier replaces the payment identifier in scopes, in the execute path"';

export const basketChecks: readonly Check[] = [
  {
    id: 'basket.initiate',
    title: 'a signing basket answers its payments and signingBaskedId',
    ref: 'spec Resources "Basket response: a list of paymentId and tppPaymentReference pairs ... signingBaskedId (spelled so) ... no transactionStatus"',
    needs: ['clientToken'],
    provides: ['basket'],
    async run(context) {
      const answer = await postJson(
        context,
        SE_V2_BASKET,
        context.fact('clientToken'),
        basketBody(context.options),
      );
      const body = jsonBody(answer, 200);
      const pairs = expectArray(body, 'payments');
      const references = pairs.map((_, index) => {
        expectString(body, `payments.${index}.paymentId`);
        return expectString(body, `payments.${index}.tppPaymentReference`);
      });
      if (references.join() !== 'check-1,check-2') {
        throw new Deviation('payments for check-1, check-2', `tppPaymentReference ${shown(references)}`);
      }
      const basketId = expectString(body, 'signingBaskedId');
      expectAbsent(body, 'transactionStatus', 'the basket response has none');
      context.provide('basket', { basketId, product: SEK_TRANSFER });
    },
  },
  {
    id: 'basket.authorize',
    title: 'the PSU authorizes the basket by its identifier',
    ref: `spec row 8 "scope=PIS:<payment_id> (required; basket identifier for baskets)"; ${RULE_2}`,
    needs: ['basket'],
    provides: ['basketToken'],
    async run(context) {
      context.provide('basketToken', await setupPsuToken(context, `PIS:${context.fact('basket').basketId}`));
    },
  },
  {
    id: 'basket.execute',
    title: 'the basket executes under its identifier and answers signingBasketId',
    ref: `spec row 12 "For a basket the basket identifier replaces paymentId", "200: paymentId (basket: signingBasketId)"; ${RULE_2}`,
    needs: ['basketToken'],
    async run(context) {
      const { basketId, product } = context.fact('basket');
      const answer = await execute(context, product, basketId, context.fact('basketToken'));
      expectPaymentStatus(answer, 'signingBasketId', basketId, EXECUTED);
    },
  },
  {
    id: 'basket.other-bank-refused',
    title: 'a basket with an other-bank payment is refused',
    ref: 'spec other-bank rule 3 "It cannot be part of a basket"; spec Errors 2 "answered with errors"',
    needs: ['clientToken', 'basket'],
    async run(context) {
      const extra = {
        paymentProduct: OTHER_BANK,
        tppPaymentReference: 'check-3',
        ...otherBankBody(context.options),
      };
      const body = basketBody(context.options, [extra]);
      const answer = await postJson(context, SE_V2_BASKET, context.fact('clientToken'), body);
      expectApiError(answer, {
        status: [400, 403],
        codes: ['PRODUCT_INVALID', 'PARAMETER_NOT_SUPPORTED', 'FORMAT_ERROR'],
      });
    },
  },
];
