// The body rules of each payment product: what the bank accepts before a payment exists.
// Two steps: the body alone (validatePaymentBody), then the body against the debtor's account
// (checkDebtorAccount), which the service looks up in between.
import {
  type Iban,
  type Parsed,
  parseBic,
  parseBritishAccount,
  parseGiro,
  parseIban,
  parseSwedishAccount,
} from './account-identifiers.ts';
import { addDays, isIsoDate } from './dates.ts';
import type { TppMessage } from './errors.ts';
import { isKnownCurrency, type Money, parseAmount } from './money.ts';
import type { Country, CustomerType, PaymentProduct, ProductDefinition } from './products.ts';

export interface AccountField {
  readonly value?: string;
  readonly accountType?: string;
  readonly currency?: string;
  readonly country?: string;
  readonly clearingNumber?: string;
}

/** The initiation body as the TPP sends it (its shape is checked at the boundary). */
export interface PaymentBody {
  readonly debtorAccount?: AccountField;
  readonly creditorAccount?: AccountField;
  readonly instructedAmount?: { readonly currency?: string; readonly amount?: string | number };
  readonly creditor?: { readonly name?: string; readonly postalAddress?: Readonly<Record<string, string>> };
  readonly creditorAgent?: { readonly bic?: string };
  readonly paymentTypeInformation?: {
    readonly serviceLevel?: { readonly code?: string };
    readonly categoryPurpose?: { readonly code?: string };
  };
  readonly chargeBearer?: string;
  readonly requestedExecutionDate?: string;
  readonly remittanceInformationUnstructured?: string;
  readonly remittanceInformation?: { readonly text?: string };
  readonly tppPaymentReference?: string;
  readonly endToEndIdentification?: string;
}

/** How the debtor's account is found at the bank. */
export type DebtorLookup =
  | { readonly kind: 'iban'; readonly iban: string }
  | { readonly kind: 'bban'; readonly country: Country; readonly bban: string };

export interface CreditorDetails {
  readonly accountType: 'IBAN' | 'BBAN' | 'BG' | 'PG';
  /** Normalised: IBAN in electronic format, BBAN digits only (clearing number first in Sweden). */
  readonly account: string;
  readonly name: string | null;
  readonly bic: string | null;
  readonly ownBank: boolean;
}

/** A validated payment, ready to be stored once its debtor account is known. */
export interface PaymentInstruction {
  readonly product: PaymentProduct;
  readonly country: Country;
  readonly debtor: DebtorLookup;
  readonly creditor: CreditorDetails;
  readonly amount: Money;
  readonly requestedExecutionDate: string | null;
  readonly remittance: string | null;
  readonly tppPaymentReference: string | null;
  readonly endToEndIdentification: string | null;
}

/** The facts of the debtor's account that the rules need. */
export interface DebtorAccountFacts {
  readonly country: string;
  readonly currency: string;
  /** ISO 20022 cash account type: CACC current account, SVGS savings account. */
  readonly accountType: string;
  readonly ownerType: CustomerType;
}

export interface RuleContext {
  readonly country: Country;
  /** The bank's date today (ISO). */
  readonly today: string;
}

/** The type of account that may no longer pay other banks (contract rule 7 of other-bank transfers). */
export const ACCOUNT_TYPE_NOT_FOR_OTHER_BANKS = 'SVGS';
/**
 * Types of account whose money a payment cannot move at all: an investment savings account (ISK)
 * pays out only to its holder's own account, at the bank. Initiation cannot see it; the bank rejects
 * the payment at execution (AG01).
 */
export const ACCOUNT_TYPES_NOT_FOR_PAYMENTS: readonly string[] = ['ISK'];
const CREDITOR_NAME_MAX = 35;
/** How far ahead a payment may be dated. */
const MAX_DAYS_AHEAD = 365;

const PRODUCT_CURRENCY: Partial<Record<PaymentProduct, string>> = {
  'handelsbanken-domestic-credit-transfer': 'SEK',
  'other-bank-domestic-credit-transfer': 'SEK',
  'sek-credit-transfer': 'SEK',
  'british-domestic-credit-transfer': 'GBP',
  'sepa-credit-transfer': 'EUR',
};

type Messages = TppMessage[];
type Result<T> = { ok: true; value: T } | { ok: false; messages: readonly TppMessage[] };

export function validatePaymentBody(
  product: ProductDefinition,
  body: PaymentBody,
  context: RuleContext,
): Result<PaymentInstruction> {
  const messages: Messages = [];
  const amount = checkAmount(product, body, messages);
  const debtor = checkDebtorReference(product, body.debtorAccount, context.country, messages);
  const creditor = checkCreditor(product, body, messages);
  const requestedExecutionDate = checkExecutionDate(
    product,
    body.requestedExecutionDate,
    context.today,
    messages,
  );
  const remittance = checkRemittance(product, body, messages);
  checkPaymentType(product, body, messages);
  if (messages.length > 0 || amount === undefined || debtor === undefined || creditor === undefined) {
    return { ok: false, messages };
  }
  return {
    ok: true,
    value: {
      product: product.id,
      country: context.country,
      debtor,
      creditor,
      amount,
      requestedExecutionDate,
      remittance,
      tppPaymentReference: body.tppPaymentReference ?? null,
      endToEndIdentification: body.endToEndIdentification ?? null,
    },
  };
}

function checkAmount(product: ProductDefinition, body: PaymentBody, messages: Messages): Money | undefined {
  const currency = body.instructedAmount?.currency ?? '';
  const required = PRODUCT_CURRENCY[product.id];
  if (required !== undefined && currency !== required) {
    messages.push(formatError('instructedAmount.currency', `${product.id} is paid in ${required}`));
    return undefined;
  }
  if (!isKnownCurrency(currency)) {
    messages.push(
      formatError('instructedAmount.currency', 'instructedAmount.currency is not a supported currency'),
    );
    return undefined;
  }
  const parsed = parseAmount(body.instructedAmount?.amount ?? '', currency);
  if (!parsed.ok) {
    messages.push(formatError('instructedAmount.amount', `instructedAmount.amount ${parsed.reason}`));
    return undefined;
  }
  return parsed.money;
}

/** Which account types each product takes on each side. */
function allowedTypes(product: PaymentProduct, side: 'debtor' | 'creditor'): readonly string[] {
  switch (product) {
    case 'handelsbanken-domestic-credit-transfer':
    case 'other-bank-domestic-credit-transfer':
      return ['BBAN'];
    case 'sek-credit-transfer':
      return side === 'debtor' ? ['BBAN'] : ['BBAN', 'BG', 'PG'];
    case 'sepa-credit-transfer':
      return side === 'debtor' ? ['IBAN', 'BBAN'] : ['IBAN'];
    default:
      return ['IBAN', 'BBAN'];
  }
}

function checkAccountType(
  product: PaymentProduct,
  side: 'debtor' | 'creditor',
  field: AccountField | undefined,
  messages: Messages,
): 'IBAN' | 'BBAN' | 'BG' | 'PG' | undefined {
  const path = `${side}Account`;
  const allowed = allowedTypes(product, side);
  const type = field?.accountType ?? '';
  if (!allowed.includes(type)) {
    messages.push(formatError(`${path}.accountType`, `${product} takes ${allowed.join(' or ')} here`));
    return undefined;
  }
  if (field?.currency !== undefined && !isKnownCurrency(field.currency)) {
    messages.push(formatError(`${path}.currency`, `${path}.currency is not a supported currency`));
  }
  return type as 'IBAN' | 'BBAN' | 'BG' | 'PG';
}

function checkDebtorReference(
  product: ProductDefinition,
  field: AccountField | undefined,
  country: Country,
  messages: Messages,
): DebtorLookup | undefined {
  const type = checkAccountType(product.id, 'debtor', field, messages);
  if (type === undefined) return undefined;
  const value = field?.value ?? '';
  if (type === 'IBAN') {
    const iban = reportInvalid(parseIban(value), 'debtorAccount.value', messages);
    return iban === undefined ? undefined : { kind: 'iban', iban: iban.iban };
  }
  const bban = domesticBban(country, value, field?.clearingNumber);
  if (bban === undefined) {
    messages.push(
      formatError('debtorAccount.accountType', `BBAN is not taken for accounts in ${country}: use IBAN`),
    );
    return undefined;
  }
  const parsed = reportInvalid(bban, 'debtorAccount.value', messages);
  return parsed === undefined ? undefined : { kind: 'bban', country, bban: parsed.bban };
}

/** A BBAN parsed by the rules of the country that issued it; undefined where BBANs are not taken. */
function domesticBban(
  country: string,
  value: string,
  clearingNumber?: string,
): Parsed<{ readonly bban: string; readonly ownBank: boolean }> | undefined {
  if (country === 'SE') return parseSwedishAccount(value, clearingNumber);
  if (country === 'GB') return parseBritishAccount(value);
  return undefined;
}

function checkCreditor(
  product: ProductDefinition,
  body: PaymentBody,
  messages: Messages,
): CreditorDetails | undefined {
  const field = body.creditorAccount;
  const name = body.creditor?.name ?? null;
  const needsName = [
    'british-domestic-credit-transfer',
    'sepa-credit-transfer',
    'cross-currency-credit-transfer',
  ];
  if (name === null && needsName.includes(product.id)) {
    messages.push(formatError('creditor.name', `${product.id} needs the creditor's name`));
  } else if (name !== null && (name.trim() === '' || [...name].length > CREDITOR_NAME_MAX)) {
    messages.push(formatError('creditor.name', `creditor.name must be 1 to ${CREDITOR_NAME_MAX} characters`));
  }
  const bic = checkCreditorAgent(product, body.creditorAgent?.bic, messages);
  const type = checkAccountType(product.id, 'creditor', field, messages);
  if (type === undefined) return undefined;
  const value = field?.value ?? '';
  const account =
    type === 'IBAN'
      ? ibanCreditor(product, value, messages)
      : type === 'BBAN'
        ? bbanCreditor(product, field, messages)
        : giroCreditor(type, value, messages);
  if (account === undefined) return undefined;
  return { accountType: type, account: account.account, ownBank: account.ownBank, name, bic };
}

function checkCreditorAgent(product: ProductDefinition, value: string | undefined, messages: Messages) {
  if (value === undefined) {
    if (product.id === 'cross-currency-credit-transfer') {
      messages.push(
        formatError('creditorAgent.bic', 'a cross-currency payment needs the BIC of the creditor agent'),
      );
    }
    return null;
  }
  return reportInvalid(parseBic(value), 'creditorAgent.bic', messages) ?? null;
}

function ibanCreditor(product: ProductDefinition, value: string, messages: Messages) {
  const iban: Iban | undefined = reportInvalid(parseIban(value), 'creditorAccount.value', messages);
  if (iban === undefined) return undefined;
  if (product.id === 'sepa-credit-transfer' && !iban.sepa) {
    messages.push(paymentFailed('creditorAccount.value', `${iban.country} is not a SEPA country`));
    return undefined;
  }
  if (product.id === 'british-domestic-credit-transfer' && iban.country !== 'GB') {
    messages.push(
      paymentFailed('creditorAccount.value', 'a British domestic payment goes to an account in GB'),
    );
    return undefined;
  }
  return { account: iban.iban, ownBank: iban.ownBank };
}

function giroCreditor(type: 'BG' | 'PG', value: string, messages: Messages) {
  const giro = reportInvalid(parseGiro(type, value), 'creditorAccount.value', messages);
  return giro === undefined ? undefined : { account: giro, ownBank: false };
}

function bbanCreditor(product: ProductDefinition, field: AccountField | undefined, messages: Messages) {
  const value = field?.value ?? '';
  if (product.id === 'cross-currency-credit-transfer') {
    // Foreign accounts outside the IBAN world (for example in the US): the account number as the bank knows it.
    const account = value.replace(/\s/g, '').toUpperCase();
    if (!/^[A-Z0-9]{1,34}$/.test(account)) {
      messages.push(
        formatError('creditorAccount.value', 'creditorAccount.value must be 1 to 34 letters and digits'),
      );
      return undefined;
    }
    return { account, ownBank: false };
  }
  const country = product.id === 'british-domestic-credit-transfer' ? 'GB' : 'SE';
  const parsed = reportInvalid(
    domesticBban(country, value, field?.clearingNumber)!,
    'creditorAccount.value',
    messages,
  );
  if (parsed === undefined) return undefined;
  if (product.id === 'handelsbanken-domestic-credit-transfer' && !parsed.ownBank) {
    messages.push(
      paymentFailed(
        'creditorAccount.value',
        'the creditor account is at another bank: use other-bank-domestic-credit-transfer',
      ),
    );
    return undefined;
  }
  if (product.id === 'other-bank-domestic-credit-transfer' && parsed.ownBank) {
    messages.push(
      paymentFailed(
        'creditorAccount.value',
        "the creditor's clearing number belongs to this bank: use handelsbanken-domestic-credit-transfer",
      ),
    );
    return undefined;
  }
  return { account: parsed.bban, ownBank: parsed.ownBank };
}

function checkExecutionDate(
  product: ProductDefinition,
  date: string | undefined,
  today: string,
  messages: Messages,
): string | null {
  if (date === undefined) return null;
  if (!product.futureDated) {
    messages.push({
      code: 'PARAMETER_NOT_SUPPORTED',
      path: 'requestedExecutionDate',
      text: `${product.id} cannot be future dated: send no requestedExecutionDate`,
    });
    return null;
  }
  if (!isIsoDate(date)) {
    messages.push(
      formatError('requestedExecutionDate', 'requestedExecutionDate must be a date as YYYY-MM-DD'),
    );
    return null;
  }
  if (date < today) {
    messages.push({
      code: 'EXECUTION_DATE_INVALID',
      path: 'requestedExecutionDate',
      text: `requestedExecutionDate ${date} is in the past (today is ${today})`,
    });
    return null;
  }
  const last = addDays(today, MAX_DAYS_AHEAD);
  if (date > last) {
    messages.push({
      code: 'EXECUTION_DATE_INVALID',
      path: 'requestedExecutionDate',
      text: `requestedExecutionDate may be at most ${MAX_DAYS_AHEAD} days ahead (${last})`,
    });
    return null;
  }
  return date;
}

function checkRemittance(product: ProductDefinition, body: PaymentBody, messages: Messages): string | null {
  const unstructured = body.remittanceInformationUnstructured;
  const structured = body.remittanceInformation?.text;
  if (unstructured !== undefined && structured !== undefined) {
    messages.push(
      formatError(
        'remittanceInformation',
        'send remittanceInformationUnstructured or remittanceInformation, not both',
      ),
    );
    return null;
  }
  const text = unstructured ?? structured;
  if (text === undefined) return null;
  const path =
    unstructured !== undefined ? 'remittanceInformationUnstructured' : 'remittanceInformation.text';
  if ([...text].length > product.remittanceMax) {
    messages.push(
      formatError(path, `the message of ${product.id} is at most ${product.remittanceMax} characters`),
    );
    return null;
  }
  return text;
}

function checkPaymentType(product: ProductDefinition, body: PaymentBody, messages: Messages): void {
  if (product.id !== 'sepa-credit-transfer') return;
  const serviceLevel = body.paymentTypeInformation?.serviceLevel?.code;
  if (serviceLevel !== undefined && serviceLevel !== 'SEPA') {
    messages.push(
      formatError(
        'paymentTypeInformation.serviceLevel.code',
        'a SEPA credit transfer has service level SEPA',
      ),
    );
  }
  if (body.chargeBearer !== undefined && body.chargeBearer !== 'SLEV') {
    messages.push(formatError('chargeBearer', 'a SEPA credit transfer has charge bearer SLEV'));
  }
}

/** The rules that need the debtor's account: where it is held, its currency, type and owner. */
export function checkDebtorAccount(
  instruction: PaymentInstruction,
  body: PaymentBody,
  account: DebtorAccountFacts,
): TppMessage[] {
  const messages: Messages = [];
  if (account.country !== instruction.country) {
    messages.push(
      paymentFailed(
        'debtorAccount.value',
        `the account is held in ${account.country}, not ${instruction.country}`,
      ),
    );
  }
  const declared = body.debtorAccount?.currency;
  if (declared !== undefined && declared !== account.currency) {
    messages.push(formatError('debtorAccount.currency', `the account's currency is ${account.currency}`));
  }
  const declaredCountry = body.debtorAccount?.country;
  if (declaredCountry !== undefined && declaredCountry !== account.country) {
    messages.push(
      formatError(
        'debtorAccount.country',
        `the account is held in ${account.country}, not ${declaredCountry}`,
      ),
    );
  }
  const required = PRODUCT_CURRENCY[instruction.product];
  if (
    required !== undefined &&
    instruction.product !== 'sepa-credit-transfer' &&
    account.currency !== required
  ) {
    messages.push(
      paymentFailed('debtorAccount.value', `${instruction.product} is paid from a ${required} account`),
    );
  }
  if (
    instruction.product === 'cross-currency-credit-transfer' &&
    account.currency === instruction.amount.currency
  ) {
    messages.push(
      paymentFailed(
        'instructedAmount.currency',
        `a cross-currency payment is in another currency than the account's (${account.currency})`,
      ),
    );
  }
  if (
    instruction.product === 'other-bank-domestic-credit-transfer' &&
    account.accountType === ACCOUNT_TYPE_NOT_FOR_OTHER_BANKS
  ) {
    messages.push(
      paymentFailed(
        'debtorAccount.value',
        'payments to other banks cannot be made from this type of account',
      ),
    );
  }
  return messages;
}

function reportInvalid<T>(parsed: Parsed<T>, path: string, messages: Messages): T | undefined {
  if (parsed.ok) return parsed.value;
  messages.push(formatError(path, `${path} ${parsed.reason}`));
  return undefined;
}

function formatError(path: string, text: string): TppMessage {
  return { code: 'FORMAT_ERROR', path, text };
}

function paymentFailed(path: string, text: string): TppMessage {
  return { code: 'PAYMENT_FAILED', path, text };
}
