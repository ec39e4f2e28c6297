// The request bodies the checks send, built from the options' accounts: the spec's SEPA example shape
// for the general API, and the Swedish bodies of API-NOTES "Payment bodies (Sweden)". The valid ones
// satisfy the typed client's request types (generated from the gateway's schemas), so that they cannot
// drift from the contract; a check's overrides then make one thing wrong on purpose.
import type { JsonBodyOf } from '@psd2-gateway/client';
import type { CheckOptions } from './options.ts';

export const OTHER_BANK = 'other-bank-domestic-credit-transfer';
export const OWN_BANK = 'handelsbanken-domestic-credit-transfer';
export const SEPA = 'sepa-credit-transfer';
export const SEK_TRANSFER = 'sek-credit-transfer';

export const SE_V2_PRIVATE = '/psd2/se/v2/payments/private/single';
export const SE_V2_CORPORATE = '/psd2/se/v2/payments/corporate/single';
export const SE_V2_BASKET = '/psd2/se/v2/payments/private/signing-basket';
export const GENERAL = '/psd2/v1/payments';

/** A valid SEPA creditor anywhere (the IBAN standard's German example). */
const SEPA_CREDITOR_IBAN = 'DE89370400440532013000';

type Body = Record<string, unknown>;
type SwedishPayment = JsonBodyOf<'initiateSeV2Payment'>;

/** A private customer's SEK payment to another Swedish bank (API-NOTES: message at most 12 characters). */
export function otherBankBody(options: CheckOptions, overrides: Body = {}): Body {
  const valid = {
    debtorAccount: { value: options.debtorBban, accountType: 'BBAN' },
    creditorAccount: { value: options.creditorBban, accountType: 'BBAN' },
    instructedAmount: { currency: 'SEK', amount: '100.00' },
    creditor: { name: 'Sven Svensson' },
    remittanceInformationUnstructured: 'Faktura 12',
  } satisfies SwedishPayment;
  return { ...valid, ...overrides };
}

/** A payment within the bank, which may be future dated. */
export function ownBankBody(options: CheckOptions, overrides: Body = {}): Body {
  const valid = {
    debtorAccount: { value: options.debtorBban, accountType: 'BBAN' },
    creditorAccount: { value: options.ownBankCreditorBban, accountType: 'BBAN' },
    instructedAmount: { currency: 'SEK', amount: '25.50' },
    remittanceInformationUnstructured: 'Hyra',
  } satisfies SwedishPayment;
  return { ...valid, ...overrides };
}

/** The general API's SEPA example of the spec (Resources: "Payment (initiation request, general API, SEPA example shape)"). */
export function sepaBody(options: CheckOptions): Body {
  return {
    debtorAccount: {
      value: options.debtorIban,
      accountType: 'IBAN',
      currency: 'EUR',
      country: countryOf(options),
    },
    instructedAmount: { currency: 'EUR', amount: '10.00' },
    paymentTypeInformation: { serviceLevel: { code: 'SEPA' }, categoryPurpose: { code: 'SUPP' } },
    chargeBearer: 'SLEV',
    creditorAccount: { value: SEPA_CREDITOR_IBAN, accountType: 'IBAN', country: 'DE' },
    creditor: { name: 'Muster GmbH', postalAddress: { townName: 'Berlin', country: 'DE' } },
  } satisfies JsonBodyOf<'initiatePayment'>;
}

/** The general API's Country header: the debtor IBAN's country. */
export function countryOf(options: CheckOptions): string {
  return options.debtorIban.slice(0, 2);
}

/** A corporate customer's payment within the bank. */
export function corporateBody(options: CheckOptions): Body {
  return ownBankBody(options, { debtorAccount: { value: options.corporateBban, accountType: 'BBAN' } });
}

export function corporateHeaders(options: CheckOptions): Record<string, string> {
  return { 'PSU-Corporate-ID': options.corporateId, 'PSU-Corporate-ID-Type': 'BANK' };
}

/** A signing basket: a SEK credit transfer (basket only in the sandbox) and a payment within the bank. */
export function basketBody(options: CheckOptions, extra: Body[] = []): Body {
  return {
    payments: [
      {
        paymentProduct: SEK_TRANSFER,
        tppPaymentReference: 'check-1',
        ...otherBankBody(options, { remittanceInformationUnstructured: 'Basket 1' }),
      },
      { paymentProduct: OWN_BANK, tppPaymentReference: 'check-2', ...ownBankBody(options) },
      ...extra,
    ],
  };
}

/** A date `days` from today (UTC), as YYYY-MM-DD; far enough from today that time zones do not matter. */
export function isoDate(days: number): string {
  return new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);
}
