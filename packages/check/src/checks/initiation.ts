// Step 2: payment initiation on Sweden v2 (spec row 7) and the general API (spec row 6), and the
// fields of the initiation response (spec Resources "Payment initiation response").
import { type Check, Deviation } from '../check.ts';
import { expectArray, expectOneOf, expectString, expectValue, jsonBody, shown } from '../expect.ts';
import {
  corporateBody,
  corporateHeaders,
  countryOf,
  GENERAL,
  OTHER_BANK,
  OWN_BANK,
  otherBankBody,
  SE_V2_CORPORATE,
  SE_V2_PRIVATE,
  SEPA,
  sepaBody,
} from '../fixtures.ts';
import { initiate } from '../flow.ts';
import type { Answer } from '../http.ts';

const SCA_REF =
  'spec Resources "Payment initiation response": scaMethodType "REDIRECT or DECOUPLED (decoupled only in Sweden)", _links.authorization[] "href, name, type"';

/** The SCA method types of an initiation answer, each element's fields checked. */
function scaMethodTypes(body: Record<string, unknown>): string[] {
  return expectArray(body, 'scaMethods').map((_, index) => {
    const method = `scaMethods.${index}`;
    const type = expectOneOf(body, `${method}.scaMethodType`, ['REDIRECT', 'DECOUPLED']);
    expectArray(body, `${method}._links.authorization`).forEach((_link, at) => {
      const link = `${method}._links.authorization.${at}`;
      expectString(body, `${link}.href`);
      expectString(body, `${link}.name`);
      const mediaType = expectString(body, `${link}.type`);
      if (!/^[\w.+-]+\/[\w.+-]+$/.test(mediaType)) {
        throw new Deviation(`${link}.type: a media type`, `${link}.type: ${shown(mediaType)}`);
      }
    });
    return type;
  });
}

function expectMethods(
  types: readonly string[],
  wanted: readonly string[],
  unwanted: readonly string[],
): void {
  const missing = wanted.filter((type) => !types.includes(type));
  const extra = unwanted.filter((type) => types.includes(type));
  if (missing.length > 0 || extra.length > 0) {
    const expected = `scaMethods ${wanted.join(' and ')}${unwanted.length > 0 ? `, no ${unwanted.join(', ')}` : ''}`;
    throw new Deviation(expected, `scaMethods ${shown(types)}`);
  }
}

/** An initiation answer: its body and payment id. */
function initiated(answer: Answer) {
  const body = jsonBody(answer, 200);
  return { body, paymentId: expectString(body, 'paymentId') };
}

export const initiationChecks: readonly Check[] = [
  {
    id: 'initiate.se-v2',
    title: 'a single payment on the Swedish v2 API',
    ref: 'spec row 7 "POST /psd2/se/v2/payments/..." (API-NOTES Paths: "{private|corporate}/single/{paymentProduct}"): "Same as 6"',
    needs: ['clientToken'],
    provides: ['sePayment', 'seInitiation'],
    async run(context) {
      const answer = await initiate(context, context.fact('clientToken'), {
        path: `${SE_V2_PRIVATE}/${OTHER_BANK}`,
        body: otherBankBody(context.options),
      });
      const { body, paymentId } = initiated(answer);
      context.provide('sePayment', paymentId);
      context.provide('seInitiation', body);
    },
  },
  {
    id: 'initiate.se-v2.transaction-status',
    title: 'the initiated payment is ACTC',
    ref: 'spec Resources "Payment initiation response": transactionStatus "ACTC at initiation"; States row 1',
    needs: ['seInitiation'],
    async run(context) {
      expectValue(context.fact('seInitiation'), 'transactionStatus', 'ACTC');
    },
  },
  {
    id: 'initiate.se-v2.sca-methods',
    title: 'a Swedish payment offers REDIRECT and DECOUPLED',
    ref: SCA_REF,
    needs: ['seInitiation'],
    async run(context) {
      expectMethods(scaMethodTypes(context.fact('seInitiation')), ['REDIRECT', 'DECOUPLED'], []);
    },
  },
  {
    id: 'initiate.general',
    title: 'a SEPA payment on the general API with the Country header',
    ref: 'spec row 6 "POST /psd2/v1/payments/{paymentProduct}", "Country (required)": "200: initiation response"',
    needs: ['clientToken'],
    provides: ['generalPayment', 'generalInitiation'],
    async run(context) {
      const answer = await initiate(context, context.fact('clientToken'), {
        path: `${GENERAL}/${SEPA}`,
        body: sepaBody(context.options),
        country: countryOf(context.options),
      });
      const { body, paymentId } = initiated(answer);
      expectValue(body, 'transactionStatus', 'ACTC');
      context.provide('generalPayment', paymentId);
      context.provide('generalInitiation', body);
    },
  },
  {
    id: 'initiate.general.sca-methods',
    title: 'decoupled is offered in Sweden only',
    ref: SCA_REF,
    needs: ['generalInitiation'],
    async run(context) {
      const swedish = countryOf(context.options) === 'SE';
      expectMethods(
        scaMethodTypes(context.fact('generalInitiation')),
        ['REDIRECT'],
        swedish ? [] : ['DECOUPLED'],
      );
    },
  },
  {
    id: 'initiate.se-v2.corporate',
    title: "a corporate customer's payment with PSU-Corporate-ID and PSU-Corporate-ID-Type",
    ref: 'spec Endpoints "Corporate PSUs: headers PSU-Corporate-ID and PSU-Corporate-ID-Type (the latter always BANK) are required on initiation"',
    needs: ['clientToken'],
    async run(context) {
      const answer = await initiate(context, context.fact('clientToken'), {
        path: `${SE_V2_CORPORATE}/${OWN_BANK}`,
        body: corporateBody(context.options),
        headers: corporateHeaders(context.options),
      });
      expectValue(initiated(answer).body, 'transactionStatus', 'ACTC');
    },
  },
];
