// The sandbox test data as GET /sandbox/test-data lists it (and the sandbox page shows it): the
// sandbox app, the test PSUs' password, PSUs with their accounts, card accounts, cards, creditors at
// other banks and the scenario table. Customers and the app are read from the database at request time.
import type { Config } from '../config.ts';
import type { AccountRecord, CardAccountRecord } from '../domain/accounts.ts';
import { formatAmount } from '../domain/money.ts';
import { SANDBOX_USERS } from '../domain/sandbox-users.ts';
import { listAccounts, listCardAccountsOfPsu, listCardsOf, listPsus } from '../store/customers-repository.ts';
import type { StoreDb } from '../store/database.ts';
import { SCENARIO_TABLE, type ScenarioRow } from './scenarios.ts';
import { findSandboxApp, TEST_PSU_PASSWORD } from './seed.ts';
import { EXAMPLE_CREDITORS } from './test-data.ts';

export interface TestDataAccount {
  accountId: string;
  iban?: string;
  bban?: string;
  clearingNumber?: string;
  currency: string;
  country: string;
  name: string;
  ownerName: string;
}

export interface TestDataCardAccount {
  cardAccountId: string;
  psuId: string;
  currency: string;
  product: string;
  ownerName: string;
  creditLimit: { currency: string; amount: string };
}

/** A card: a debit card draws on an account, a credit card on a card account. */
export interface TestDataCard {
  cardId: string;
  maskedPan: string;
  name: string;
  accountId?: string;
  cardAccountId?: string;
}

/** An account at another bank to pay to, and the payment product it suits. */
export interface TestDataCreditor {
  bank: string;
  country: string;
  accountType: 'IBAN' | 'BBAN';
  account: string;
  bic?: string;
  product: string;
}

export interface TestData {
  /** The seeded sandbox app; missing only before it is seeded (moments after the start). */
  app?: { clientId: string; redirectUri: string };
  /** Every test PSU's password in the built-in PSU directory (the live login page asks for it). */
  psuPassword: string;
  /** X-Sandbox-User's values on the authorize request, and the test PSU each picks (domain/sandbox-users.ts). */
  sandboxUsers: { name: string; psuId: string }[];
  /** What the scenario PSUs and accounts make happen (src/sandbox/scenarios.ts). */
  scenarios: ScenarioRow[];
  psus: {
    psuId: string;
    name: string;
    type: 'private' | 'corporate';
    corporateId?: string;
    accounts: TestDataAccount[];
  }[];
  cardAccounts: TestDataCardAccount[];
  cards: TestDataCard[];
  creditors: TestDataCreditor[];
}

/** EXAMPLE_CREDITORS with their banks and what to pay them with. */
export const TEST_CREDITORS: readonly TestDataCreditor[] = [
  {
    bank: 'SEB',
    country: 'SE',
    accountType: 'BBAN',
    account: EXAMPLE_CREDITORS.sebBban,
    product: 'other-bank-domestic-credit-transfer',
  },
  {
    bank: 'Swedbank',
    country: 'SE',
    accountType: 'BBAN',
    account: EXAMPLE_CREDITORS.swedbankBban,
    product: 'other-bank-domestic-credit-transfer',
  },
  {
    bank: 'Commerzbank',
    country: 'DE',
    accountType: 'IBAN',
    account: EXAMPLE_CREDITORS.germanIban,
    product: 'sepa-credit-transfer',
  },
  {
    bank: 'La Banque Postale',
    country: 'FR',
    accountType: 'IBAN',
    account: EXAMPLE_CREDITORS.frenchIban,
    product: 'sepa-credit-transfer',
  },
  {
    bank: 'Barclays',
    country: 'GB',
    accountType: 'BBAN',
    account: EXAMPLE_CREDITORS.britishOtherBank,
    product: 'british-domestic-credit-transfer',
  },
  {
    bank: 'JPMorgan Chase',
    country: 'US',
    accountType: 'BBAN',
    account: EXAMPLE_CREDITORS.usAccount,
    bic: EXAMPLE_CREDITORS.usBic,
    product: 'cross-currency-credit-transfer',
  },
];

/**
 * The test data now. `config` names the sandbox app as ensureSandboxApp chose it (SANDBOX_CLIENT_ID);
 * without it, the first app seeded.
 */
export async function listTestData(
  db: StoreDb,
  config: Pick<Config, 'sandboxClientId'> = { sandboxClientId: undefined },
): Promise<TestData> {
  const [app, psus, accounts] = await Promise.all([
    findSandboxApp(db, config),
    listPsus(db),
    listAccounts(db),
  ]);
  const cardAccounts = (await Promise.all(psus.map((psu) => listCardAccountsOfPsu(db, psu.psuId)))).flat();
  const cards = await listCardsOf(db, [
    ...accounts.map((account) => account.accountId),
    ...cardAccounts.map((cardAccount) => cardAccount.cardAccountId),
  ]);
  return {
    ...(app === undefined ? {} : { app: { clientId: app.clientId, redirectUri: app.redirectUri } }),
    psuPassword: TEST_PSU_PASSWORD,
    sandboxUsers: Object.entries(SANDBOX_USERS).map(([name, psuId]) => ({ name, psuId })),
    scenarios: [...SCENARIO_TABLE],
    psus: psus.map((psu) => ({
      psuId: psu.psuId,
      name: psu.name,
      type: psu.customerType,
      ...(psu.corporateId === null ? {} : { corporateId: psu.corporateId }),
      accounts: accounts.filter((account) => account.psuId === psu.psuId).map(listedAccount),
    })),
    cardAccounts: cardAccounts.map(listedCardAccount),
    cards: cards.map((card) => ({
      cardId: card.cardId,
      maskedPan: card.maskedPan,
      name: card.name,
      ...(card.accountId === null ? {} : { accountId: card.accountId }),
      ...(card.cardAccountId === null ? {} : { cardAccountId: card.cardAccountId }),
    })),
    creditors: [...TEST_CREDITORS],
  };
}

function listedAccount(account: AccountRecord): TestDataAccount {
  return {
    accountId: account.accountId,
    ...(account.iban === null ? {} : { iban: account.iban }),
    ...(account.bban === null ? {} : { bban: account.bban }),
    ...(account.clearingNumber === null ? {} : { clearingNumber: account.clearingNumber }),
    currency: account.currency,
    country: account.country,
    name: account.name,
    ownerName: account.ownerName,
  };
}

function listedCardAccount(cardAccount: CardAccountRecord): TestDataCardAccount {
  return {
    cardAccountId: cardAccount.cardAccountId,
    psuId: cardAccount.psuId,
    currency: cardAccount.currency,
    product: cardAccount.product,
    ownerName: cardAccount.ownerName,
    creditLimit: {
      currency: cardAccount.currency,
      amount: formatAmount({ currency: cardAccount.currency, minor: cardAccount.creditLimitMinor }),
    },
  };
}
