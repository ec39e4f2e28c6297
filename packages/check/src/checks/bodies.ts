// Initiation bodies that break a rule (spec Errors 2: "A payment initiation body that does not follow
// the applicable guidelines or country-specific definition is answered with errors"): each one thing
// wrong in an otherwise valid body, answered 4xx with the code and the field (API-NOTES "Error bodies",
// whose example names the field in `path`).
import type { Check } from '../check.ts';
import { type ApiErrorWanted, expectApiError } from '../error-shapes.ts';
import {
  countryOf,
  GENERAL,
  isoDate,
  OTHER_BANK,
  OWN_BANK,
  otherBankBody,
  ownBankBody,
  SE_V2_PRIVATE,
  SEK_TRANSFER,
  SEPA,
  sepaBody,
} from '../fixtures.ts';
import { initiate, tppHeaders } from '../flow.ts';
import { send } from '../http.ts';
import type { CheckOptions } from '../options.ts';

const ERRORS_2 = 'spec Errors 2 "answered with errors"';
const FORMAT = (path: string): ApiErrorWanted => ({ status: 400, codes: ['FORMAT_ERROR'], path });

interface BodyCase {
  readonly id: string;
  readonly title: string;
  readonly ref: string;
  readonly product?: string;
  readonly body: (options: CheckOptions) => Record<string, unknown>;
  readonly wanted: ApiErrorWanted;
}

const amount = (value: unknown, currency = 'SEK') => ({ instructedAmount: { currency, amount: value } });

const CASES: readonly BodyCase[] = [
  {
    id: 'body.amount-format',
    title: 'an amount that is not a decimal',
    ref: `spec Resources "instructedAmount.amount: decimal"; ${ERRORS_2}; API-NOTES "400 FORMAT_ERROR"`,
    body: (options) => otherBankBody(options, amount('12,50')),
    wanted: FORMAT('instructedAmount.amount'),
  },
  {
    id: 'body.amount-zero',
    title: 'an amount of zero',
    ref: `${ERRORS_2}; API-NOTES "400 FORMAT_ERROR"`,
    body: (options) => otherBankBody(options, amount('0.00')),
    wanted: FORMAT('instructedAmount.amount'),
  },
  {
    id: 'body.amount-decimals',
    title: 'more decimals than the currency has',
    ref: `${ERRORS_2}; API-NOTES "400 FORMAT_ERROR"`,
    body: (options) => otherBankBody(options, amount('10.005')),
    wanted: FORMAT('instructedAmount.amount'),
  },
  {
    id: 'body.missing-amount',
    title: 'no instructedAmount',
    ref: `spec Resources "Payment": instructedAmount.currency, instructedAmount.amount; ${ERRORS_2}`,
    body: (options) => {
      const { instructedAmount: _left, ...rest } = otherBankBody(options);
      return rest;
    },
    wanted: FORMAT('instructedAmount'),
  },
  {
    id: 'body.currency',
    title: 'another bank, paid in EUR',
    ref: 'spec other-bank rule 1 "a single payment in SEK"',
    body: (options) => otherBankBody(options, amount('10.00', 'EUR')),
    wanted: { status: 400, codes: ['FORMAT_ERROR', 'PAYMENT_FAILED'], path: 'instructedAmount.currency' },
  },
  {
    id: 'body.account-format',
    title: 'a debtor account that is no Swedish account number',
    ref: 'API-NOTES Payment bodies "BBAN (clearing number + account number, digits only)"; API-NOTES "400 FORMAT_ERROR"',
    body: (options) => otherBankBody(options, { debtorAccount: { value: '12-AB', accountType: 'BBAN' } }),
    wanted: FORMAT('debtorAccount.value'),
  },
  {
    id: 'body.account-type',
    title: 'another bank, debtor account given as IBAN',
    ref: 'spec other-bank rule 5 "Debit account and credit account are both sent as type BBAN"',
    body: (options) =>
      otherBankBody(options, { debtorAccount: { value: 'SE7160000000000123456789', accountType: 'IBAN' } }),
    wanted: {
      status: 400,
      codes: ['FORMAT_ERROR', 'PARAMETER_NOT_SUPPORTED'],
      path: 'debtorAccount.accountType',
    },
  },
  {
    id: 'body.creditor-own-bank',
    title: "another bank's product, paid to the bank itself",
    ref: 'spec other-bank rule 6 "The credit clearing number must belong to another bank"',
    body: (options) =>
      otherBankBody(options, {
        creditorAccount: { value: options.ownBankCreditorBban, accountType: 'BBAN' },
      }),
    wanted: { status: 400, codes: ['PAYMENT_FAILED', 'FORMAT_ERROR'], path: 'creditorAccount.value' },
  },
  {
    id: 'body.other-bank-future-dated',
    title: 'another bank, future dated',
    ref: 'spec other-bank rule 4 "cannot be future dated; the body carries no requestedExecutionDate"',
    body: (options) => otherBankBody(options, { requestedExecutionDate: isoDate(10) }),
    wanted: {
      status: 400,
      codes: ['PARAMETER_NOT_SUPPORTED', 'FORMAT_ERROR', 'EXECUTION_DATE_INVALID'],
      path: 'requestedExecutionDate',
    },
  },
  {
    id: 'body.date-past',
    title: 'an execution date in the past',
    ref: 'spec Resources "requestedExecutionDate: Future dating"; API-NOTES "400 ... EXECUTION_DATE_INVALID"',
    product: OWN_BANK,
    body: (options) => ownBankBody(options, { requestedExecutionDate: isoDate(-10) }),
    wanted: { status: 400, codes: ['EXECUTION_DATE_INVALID'], path: 'requestedExecutionDate' },
  },
  {
    id: 'body.date-format',
    title: 'an execution date that is no ISO date',
    ref: 'API-NOTES Payment bodies "requestedExecutionDate (ISO date)"; API-NOTES "400 FORMAT_ERROR"',
    product: OWN_BANK,
    body: (options) => ownBankBody(options, { requestedExecutionDate: '31/12/2030' }),
    wanted: FORMAT('requestedExecutionDate'),
  },
  {
    id: 'body.creditor-name-length',
    title: 'a creditor name of 36 characters',
    ref: 'API-NOTES Payment bodies "creditor{name} (at most 35 characters)"',
    body: (options) => otherBankBody(options, { creditor: { name: 'N'.repeat(36) } }),
    wanted: FORMAT('creditor.name'),
  },
  {
    id: 'body.message-length',
    title: 'a message of 13 characters to another bank',
    ref: 'API-NOTES Payment bodies "Message length: 12 characters to another bank"',
    body: (options) => otherBankBody(options, { remittanceInformationUnstructured: 'M'.repeat(13) }),
    wanted: FORMAT('remittanceInformationUnstructured'),
  },
  {
    id: 'body.sek-single',
    title: 'a SEK credit transfer as a single payment',
    ref: 'spec Payment products "sek-credit-transfer: in the sandbox used only as a basket payment"',
    product: SEK_TRANSFER,
    body: (options) => otherBankBody(options),
    wanted: { status: [400, 403], codes: ['PRODUCT_INVALID', 'PARAMETER_NOT_SUPPORTED', 'FORMAT_ERROR'] },
  },
];

function bodyCheck(bodyCase: BodyCase): Check {
  return {
    id: bodyCase.id,
    title: `${bodyCase.title} is refused`,
    ref: bodyCase.ref,
    needs: ['clientToken'],
    async run(context) {
      const answer = await initiate(context, context.fact('clientToken'), {
        path: `${SE_V2_PRIVATE}/${bodyCase.product ?? OTHER_BANK}`,
        body: bodyCase.body(context.options),
      });
      expectApiError(answer, bodyCase.wanted);
    },
  };
}

/** An initiation whose body is sent as it is, with the Content-Type given. */
function rawBodyCase(
  id: string,
  title: string,
  ref: string,
  contentType: string,
  body: (options: CheckOptions) => string,
  wanted: ApiErrorWanted,
): Check {
  return {
    id,
    title,
    ref,
    needs: ['clientToken'],
    async run(context) {
      const answer = await send(context, {
        method: 'POST',
        path: `${SE_V2_PRIVATE}/${OTHER_BANK}`,
        headers: { ...tppHeaders(context, context.fact('clientToken')), 'Content-Type': contentType },
        body: body(context.options),
      });
      expectApiError(answer, wanted);
    },
  };
}

export const bodyChecks: readonly Check[] = [
  ...CASES.map(bodyCheck),
  rawBodyCase(
    'body.not-json',
    'a body that is not JSON is refused',
    'spec row 6 "Content-Type: application/json"; API-NOTES "400 FORMAT_ERROR"',
    'application/json',
    () => '{"debtorAccount": ',
    { status: 400, codes: ['FORMAT_ERROR'] },
  ),
  rawBodyCase(
    'body.media-type',
    'a body that is not application/json is refused',
    'spec row 6 "Content-Type: application/json"; API-NOTES "415 UNSUPPORTED_MEDIA_TYPE"',
    'text/plain',
    (options) => JSON.stringify(otherBankBody(options)),
    { status: 415, codes: ['UNSUPPORTED_MEDIA_TYPE'] },
  ),
  {
    id: 'body.unknown-product',
    title: 'a payment product the contract does not name is unknown',
    ref: 'spec "Payment products (values of {paymentProduct})"; API-NOTES "404 PRODUCT_UNKNOWN"',
    needs: ['clientToken'],
    async run(context) {
      const answer = await initiate(context, context.fact('clientToken'), {
        path: `${GENERAL}/instant-${SEPA}`,
        body: sepaBody(context.options),
        country: countryOf(context.options),
      });
      expectApiError(answer, { status: 404, codes: ['PRODUCT_UNKNOWN'] });
    },
  },
];
