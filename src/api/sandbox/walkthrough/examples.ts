// What the walkthrough's steps are, and the test data its examples use: the sandbox's default PSU
// (consents that name no PSU are his), his Swedish accounts and credit card, a creditor at another bank.
import type { SandboxAccount, SandboxTestData } from '../schemas.ts';

export interface WalkthroughStep {
  /** Unique in the walkthrough; also the step's TPP-Request-ID suffix. */
  readonly id: string;
  readonly title: string;
  readonly text: string;
  readonly command: string;
}

export interface WalkthroughSection {
  readonly id: string;
  readonly title: string;
  readonly text: string;
  readonly steps: readonly WalkthroughStep[];
}

const EXAMPLE_PSU = '191212121212';

export interface Examples {
  readonly psuId: string;
  /** His Swedish SEK account: pays in the examples, its balances and transactions are read. */
  readonly payer: SandboxAccount & { bban: string; iban: string };
  /** Another SEK account of his, paid within the bank. */
  readonly ownAccount: (SandboxAccount & { bban: string }) | undefined;
  readonly creditor: { account: string; accountType: string };
  /** A card number of his credit card (any number with its first six and last four digits is it). */
  readonly creditCard: string | undefined;
  readonly hasCardAccount: boolean;
}

export function examplesOf(data: SandboxTestData): Examples | undefined {
  const psu = data.psus.find((candidate) => candidate.psuId === EXAMPLE_PSU);
  const swedish = (psu?.accounts ?? []).filter(
    (account) => account.country === 'SE' && account.currency === 'SEK' && account.bban !== undefined,
  );
  const payer = swedish.find((account) => account.iban !== undefined);
  const creditor = data.creditors.find(
    (candidate) => candidate.product === 'other-bank-domestic-credit-transfer',
  );
  if (psu === undefined || payer === undefined || creditor === undefined) return undefined;
  const cardAccounts = data.cardAccounts.filter((cardAccount) => cardAccount.psuId === psu.psuId);
  const creditCard = data.cards.find((card) =>
    cardAccounts.some((cardAccount) => cardAccount.cardAccountId === card.cardAccountId),
  );
  return {
    psuId: psu.psuId,
    payer: payer as Examples['payer'],
    ownAccount: swedish.find((account) => account !== payer) as Examples['ownAccount'],
    creditor,
    creditCard: creditCard?.maskedPan.replaceAll('*', '0'),
    hasCardAccount: cardAccounts.length > 0,
  };
}

/** A payment body from the payer to the creditor at another bank. */
export function toOtherBank(examples: Examples, amount: string, remittance: string): Record<string, unknown> {
  return {
    debtorAccount: { value: examples.payer.bban, accountType: 'BBAN' },
    creditorAccount: { value: examples.creditor.account, accountType: examples.creditor.accountType },
    instructedAmount: { currency: 'SEK', amount },
    creditor: { name: 'Sven Svensson' },
    remittanceInformationUnstructured: remittance,
  };
}
