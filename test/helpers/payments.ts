// Valid payment bodies of every product, from the sandbox test data, and the paths they go to.
import { EXAMPLE_CREDITORS, TEST_ACCOUNTS } from '../../src/sandbox/test-data.ts';

export const ACCOUNTS = {
  tolvan: TEST_ACCOUNTS[0]!,
  tolvanSavings: TEST_ACCOUNTS[1]!,
  agda: TEST_ACCOUNTS[2]!,
  corporateSek: TEST_ACCOUNTS[3]!,
  corporateEur: TEST_ACCOUNTS[4]!,
  otherCorporate: TEST_ACCOUNTS[5]!,
  nl: TEST_ACCOUNTS[6]!,
  lu: TEST_ACCOUNTS[7]!,
  gb: TEST_ACCOUNTS[8]!,
} as const;

export const CORPORATE_HEADERS = { 'PSU-Corporate-ID': '5566778899', 'PSU-Corporate-ID-Type': 'BANK' };

export function domestic(overrides: Record<string, unknown> = {}) {
  return {
    debtorAccount: { value: ACCOUNTS.tolvan.bban!, accountType: 'BBAN', currency: 'SEK' },
    creditorAccount: { value: ACCOUNTS.agda.bban!, accountType: 'BBAN' },
    instructedAmount: { currency: 'SEK', amount: '125.50' },
    remittanceInformationUnstructured: 'Hyra mars',
    ...overrides,
  };
}

export function otherBank(overrides: Record<string, unknown> = {}) {
  return {
    debtorAccount: { value: ACCOUNTS.tolvan.bban!, accountType: 'BBAN' },
    creditorAccount: { value: EXAMPLE_CREDITORS.sebBban, accountType: 'BBAN' },
    instructedAmount: { currency: 'SEK', amount: 99.9 },
    creditor: { name: 'Sven Svensson' },
    remittanceInformationUnstructured: 'Faktura 12',
    ...overrides,
  };
}

export function sepa(debtorIban: string, overrides: Record<string, unknown> = {}) {
  return {
    debtorAccount: { value: debtorIban, accountType: 'IBAN', currency: 'EUR' },
    instructedAmount: { currency: 'EUR', amount: '1000.00' },
    paymentTypeInformation: { serviceLevel: { code: 'SEPA' }, categoryPurpose: { code: 'SUPP' } },
    chargeBearer: 'SLEV',
    creditorAccount: { value: EXAMPLE_CREDITORS.germanIban, accountType: 'IBAN', country: 'DE' },
    creditor: { name: 'Muster GmbH', postalAddress: { townName: 'Berlin', country: 'DE' } },
    remittanceInformationUnstructured: 'Invoice 2026-11',
    ...overrides,
  };
}

export function british(overrides: Record<string, unknown> = {}) {
  return {
    debtorAccount: { value: ACCOUNTS.gb.bban!, accountType: 'BBAN', currency: 'GBP' },
    creditorAccount: { value: EXAMPLE_CREDITORS.britishOtherBank, accountType: 'BBAN' },
    instructedAmount: { currency: 'GBP', amount: '42.00' },
    creditor: { name: 'Jane Doe' },
    remittanceInformationUnstructured: 'Dinner',
    ...overrides,
  };
}

export function crossCurrency(overrides: Record<string, unknown> = {}) {
  return {
    debtorAccount: { value: ACCOUNTS.tolvan.iban!, accountType: 'IBAN' },
    creditorAccount: { value: EXAMPLE_CREDITORS.usAccount, accountType: 'BBAN' },
    creditorAgent: { bic: EXAMPLE_CREDITORS.usBic },
    creditor: { name: 'John Smith' },
    instructedAmount: { currency: 'USD', amount: '250.00' },
    ...overrides,
  };
}

/** Every single-payment product with a body and the path and headers it is initiated with. */
export const SINGLE_PAYMENTS = [
  {
    name: 'SE v2 private domestic',
    product: 'handelsbanken-domestic-credit-transfer',
    path: '/psd2/se/v2/payments/private/single/handelsbanken-domestic-credit-transfer',
    country: 'SE',
    body: domestic(),
    settled: 'ACCC',
  },
  {
    name: 'SE v2 private other bank',
    product: 'other-bank-domestic-credit-transfer',
    path: '/psd2/se/v2/payments/private/single/other-bank-domestic-credit-transfer',
    country: 'SE',
    body: otherBank(),
    settled: 'ACSC',
  },
  {
    name: 'SE v2 private cross-currency',
    product: 'cross-currency-credit-transfer',
    path: '/psd2/se/v2/payments/private/single/cross-currency-credit-transfer',
    country: 'SE',
    body: crossCurrency(),
    settled: 'ACSC',
    exchange: { sourceCurrency: 'SEK', targetCurrency: 'USD', exchangeRate: '10.600000' },
  },
  {
    name: 'SE v2 corporate SEPA',
    product: 'sepa-credit-transfer',
    path: '/psd2/se/v2/payments/corporate/single/sepa-credit-transfer',
    country: 'SE',
    body: sepa(ACCOUNTS.corporateEur.iban!),
    headers: CORPORATE_HEADERS,
    settled: 'ACSC',
  },
  {
    name: 'SE v2 corporate domestic',
    product: 'handelsbanken-domestic-credit-transfer',
    path: '/psd2/se/v2/payments/corporate/single/handelsbanken-domestic-credit-transfer',
    country: 'SE',
    body: domestic({ debtorAccount: { value: ACCOUNTS.corporateSek.bban!, accountType: 'BBAN' } }),
    headers: CORPORATE_HEADERS,
    settled: 'ACCC',
  },
  {
    name: 'general SE domestic',
    product: 'handelsbanken-domestic-credit-transfer',
    path: '/psd2/v1/payments/handelsbanken-domestic-credit-transfer',
    country: 'SE',
    body: domestic(),
    settled: 'ACCC',
  },
  {
    name: 'general SE other bank',
    product: 'other-bank-domestic-credit-transfer',
    path: '/psd2/v1/payments/other-bank-domestic-credit-transfer',
    country: 'SE',
    body: otherBank(),
    settled: 'ACSC',
  },
  {
    name: 'general SE SEPA (private)',
    product: 'sepa-credit-transfer',
    path: '/psd2/v1/payments/sepa-credit-transfer',
    country: 'SE',
    body: sepa(ACCOUNTS.tolvan.iban!, {
      debtorAccount: { value: ACCOUNTS.tolvan.iban!, accountType: 'IBAN' },
    }),
    settled: 'ACSC',
  },
  {
    name: 'general NL SEPA',
    product: 'sepa-credit-transfer',
    path: '/psd2/v1/payments/sepa-credit-transfer',
    country: 'NL',
    body: sepa(ACCOUNTS.nl.iban!),
    settled: 'ACSC',
  },
  {
    name: 'general LU SEPA',
    product: 'sepa-credit-transfer',
    path: '/psd2/v1/payments/sepa-credit-transfer',
    country: 'LU',
    body: sepa(ACCOUNTS.lu.iban!),
    settled: 'ACSC',
  },
  {
    name: 'general NL cross-currency',
    product: 'cross-currency-credit-transfer',
    path: '/psd2/v1/payments/cross-currency-credit-transfer',
    country: 'NL',
    body: crossCurrency({ debtorAccount: { value: ACCOUNTS.nl.iban!, accountType: 'IBAN' } }),
    settled: 'ACSC',
    exchange: { sourceCurrency: 'EUR', targetCurrency: 'USD', exchangeRate: '0.925764' },
  },
  {
    name: 'general GB british',
    product: 'british-domestic-credit-transfer',
    path: '/psd2/v1/payments/british-domestic-credit-transfer',
    country: 'GB',
    body: british(),
    settled: 'ACSC',
  },
  {
    name: 'general GB SEPA',
    product: 'sepa-credit-transfer',
    path: '/psd2/v1/payments/sepa-credit-transfer',
    country: 'GB',
    body: sepa(ACCOUNTS.gb.iban!, { debtorAccount: { value: ACCOUNTS.gb.iban!, accountType: 'IBAN' } }),
    settled: 'ACSC',
  },
] as const;
