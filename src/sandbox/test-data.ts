// The sandbox's static test data: PSUs, their accounts at the bank and their cards. Seeded on first
// start; README lists the same data. Account numbers pass the real check-digit rules.

import { composeIBAN } from 'ibantools';
import { OWN_IBAN_BANK_CODES } from '../domain/account-identifiers.ts';
import type { Card, Psu } from '../domain/accounts.ts';
import type { SeedAccount, SeedCardAccount } from '../store/customers-repository.ts';
import { SCENARIO_ACCOUNTS, SCENARIO_PSUS } from './scenarios.ts';

export type { SeedAccount } from '../store/customers-repository.ts';

export const TEST_PSUS: readonly Psu[] = [
  { psuId: '191212121212', name: 'Tolvan Tolvansson', customerType: 'private', corporateId: null },
  { psuId: '198112289874', name: 'Agda Andersson', customerType: 'private', corporateId: null },
  { psuId: '197001011234', name: 'Testbolaget AB', customerType: 'corporate', corporateId: '5566778899' },
  {
    psuId: '196802022345',
    name: 'Exempelföretaget AB',
    customerType: 'corporate',
    corporateId: '5590001235',
  },
  { psuId: 'nl-1001', name: 'Jan de Vries', customerType: 'private', corporateId: null },
  { psuId: 'lu-2001', name: 'Marie Weber', customerType: 'private', corporateId: null },
  { psuId: 'gb-3001', name: 'Oliver Smith', customerType: 'private', corporateId: null },
  // The scenario PSUs (src/sandbox/scenarios.ts): each makes one failure of the live service happen.
  ...SCENARIO_PSUS.map(([psuId, name]) => ({
    psuId,
    name,
    customerType: 'private' as const,
    corporateId: null,
  })),
];

function swedish(
  accountId: string,
  psuId: string,
  clearing: string,
  account: string,
  currency: string,
  accountType: string,
  name: string,
  ownerName: string,
  position: number,
): SeedAccount {
  return {
    accountId,
    psuId,
    country: 'SE',
    currency,
    // Handelsbanken's Swedish IBANs carry bank code 600 and the account number without clearing number.
    iban: swedishIban(account),
    bban: clearing + account,
    clearingNumber: clearing,
    bic: 'HANDSESS',
    accountType,
    name,
    ownerName,
    position,
    balanceMinor: SANDBOX_BALANCES[currency]!,
  };
}

/** Generous sandbox balances, in minor units: the sandbox never runs out of money. */
const SANDBOX_BALANCES: Readonly<Record<string, number>> = {
  SEK: 12_500_000_00,
  EUR: 150_000_00,
  GBP: 100_000_00,
};

function swedishIban(account: string): string {
  return composeIBAN({ countryCode: 'SE', bban: OWN_IBAN_BANK_CODES.SE + account.padStart(17, '0') })!;
}

export const TEST_ACCOUNTS: readonly SeedAccount[] = [
  swedish(
    '3a2f8b10-5c1e-4f8e-9a41-0c1d2e3f4a01',
    '191212121212',
    '6000',
    '123456789',
    'SEK',
    'CACC',
    'Allkonto',
    'Tolvan Tolvansson',
    1,
  ),
  // A savings account of the type the bank no longer offers for payments to other banks (spec rule 7).
  swedish(
    '3a2f8b10-5c1e-4f8e-9a41-0c1d2e3f4a02',
    '191212121212',
    '6000',
    '987654322',
    'SEK',
    'SVGS',
    'Sparkonto',
    'Tolvan Tolvansson',
    2,
  ),
  swedish(
    '3a2f8b10-5c1e-4f8e-9a41-0c1d2e3f4a03',
    '198112289874',
    '6789',
    '555555550',
    'SEK',
    'CACC',
    'Allkonto',
    'Agda Andersson',
    1,
  ),
  swedish(
    '3a2f8b10-5c1e-4f8e-9a41-0c1d2e3f4a04',
    '197001011234',
    '6153',
    '300000014',
    'SEK',
    'CACC',
    'Företagskonto',
    'Testbolaget AB',
    1,
  ),
  swedish(
    '3a2f8b10-5c1e-4f8e-9a41-0c1d2e3f4a05',
    '197001011234',
    '6153',
    '300000111',
    'EUR',
    'CACC',
    'Valutakonto EUR',
    'Testbolaget AB',
    2,
  ),
  swedish(
    '3a2f8b10-5c1e-4f8e-9a41-0c1d2e3f4a06',
    '196802022345',
    '6000',
    '111111110',
    'SEK',
    'CACC',
    'Företagskonto',
    'Exempelföretaget AB',
    1,
  ),
  {
    accountId: '3a2f8b10-5c1e-4f8e-9a41-0c1d2e3f4a07',
    psuId: 'nl-1001',
    country: 'NL',
    currency: 'EUR',
    iban: 'NL46HAND0254678912',
    bban: null,
    clearingNumber: null,
    bic: 'HANDNL2A',
    accountType: 'CACC',
    name: 'Betaalrekening',
    ownerName: 'Jan de Vries',
    position: 1,
    balanceMinor: SANDBOX_BALANCES.EUR!,
  },
  {
    accountId: '3a2f8b10-5c1e-4f8e-9a41-0c1d2e3f4a08',
    psuId: 'lu-2001',
    country: 'LU',
    currency: 'EUR',
    iban: 'LU630650000478912345',
    bban: null,
    clearingNumber: null,
    bic: 'HANDLULL',
    accountType: 'CACC',
    name: 'Compte courant',
    ownerName: 'Marie Weber',
    position: 1,
    balanceMinor: SANDBOX_BALANCES.EUR!,
  },
  {
    accountId: '3a2f8b10-5c1e-4f8e-9a41-0c1d2e3f4a09',
    psuId: 'gb-3001',
    country: 'GB',
    currency: 'GBP',
    iban: 'GB29HAND40516212345678',
    // Sort code 40-51-62 and account number 12345678.
    bban: '40516212345678',
    clearingNumber: '405162',
    bic: 'HANDGB22',
    accountType: 'CACC',
    name: 'Current Account',
    ownerName: 'Oliver Smith',
    position: 1,
    balanceMinor: SANDBOX_BALANCES.GBP!,
  },
  ...SCENARIO_ACCOUNTS.map((row, index) => ({
    ...swedish(
      `5ce2a210-0000-4000-8000-0000000000${String(index + 1).padStart(2, '0')}`,
      row.psuId,
      '6000',
      row.account,
      'SEK',
      row.accountType ?? 'CACC',
      row.name,
      SCENARIO_PSUS.find(([psuId]) => psuId === row.psuId)![1],
      row.position,
    ),
    ...(row.balanceMinor === undefined ? {} : { balanceMinor: row.balanceMinor }),
    ...(row.rules === undefined ? {} : { enforceRules: true, ...row.rules }),
  })),
];

/** Credit card accounts: each a ledger account of its own with a credit limit (minor units). */
export const TEST_CARD_ACCOUNTS: readonly SeedCardAccount[] = [
  {
    cardAccountId: 'b7c8d9e0-0000-4000-8000-000000000001',
    psuId: '191212121212',
    currency: 'SEK',
    product: 'Handelsbanken Mastercard',
    ownerName: 'Tolvan Tolvansson',
    creditLimitMinor: 50_000_00,
    // What is owed on the card now (after the history); negative.
    balanceMinor: -8_450_00,
    position: 1,
  },
  {
    cardAccountId: 'b7c8d9e0-0000-4000-8000-000000000002',
    psuId: '197001011234',
    currency: 'SEK',
    product: 'Handelsbanken Business Card',
    ownerName: 'Testbolaget AB',
    creditLimitMinor: 200_000_00,
    balanceMinor: -45_200_00,
    position: 1,
  },
];

export const TEST_CARDS: readonly Card[] = [
  {
    cardId: 'c1d2e3f4-0000-4000-8000-000000000001',
    accountId: TEST_ACCOUNTS[0]!.accountId,
    cardAccountId: null,
    maskedPan: '455677******1234',
    name: 'Allkort',
  },
  {
    cardId: 'c1d2e3f4-0000-4000-8000-000000000002',
    accountId: TEST_ACCOUNTS[3]!.accountId,
    cardAccountId: null,
    maskedPan: '455677******5678',
    name: 'Företagskort',
  },
  {
    cardId: 'c1d2e3f4-0000-4000-8000-000000000003',
    accountId: null,
    cardAccountId: TEST_CARD_ACCOUNTS[0]!.cardAccountId,
    maskedPan: '552233******4321',
    name: 'Mastercard',
  },
  {
    cardId: 'c1d2e3f4-0000-4000-8000-000000000004',
    accountId: null,
    cardAccountId: TEST_CARD_ACCOUNTS[1]!.cardAccountId,
    maskedPan: '552233******8765',
    name: 'Business Card',
  },
];

/** Accounts at other banks that make good creditors in examples and tests. */
export const EXAMPLE_CREDITORS = {
  sebBban: '50001234501',
  swedbankBban: '832791234560009',
  germanIban: 'DE89370400440532013000',
  frenchIban: 'FR1420041010050500013M02606',
  britishOtherBank: '20000055555555',
  usAccount: '0123456789',
  usBic: 'CHASUS33',
} as const;
