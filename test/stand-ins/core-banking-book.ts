// The stand-in core banking system's book, in memory: the bank's customers with balances, a
// statement per account, their cards, and booking orders decided once per key (the whole order or
// nothing; AC02, AC06, AM04 rejections), as docs/core-banking-api.yaml asks of a bank. Its customers are
// the sandbox's (same people and account numbers) under ids of the bank's own, which the gateway's
// seeded data never has, and one customer the sandbox does not know at all (BANK_ONLY).
import { sandboxRates } from '../../src/adapters/sandbox-rates.ts';
import type { StatementLine } from '../../src/domain/accounts.ts';
import {
  type BankAccount,
  type Card,
  type CardAccountRecord,
  maskPan,
  type Psu,
} from '../../src/domain/accounts.ts';
import { convert, type Money } from '../../src/domain/money.ts';
import { TEST_ACCOUNTS, TEST_CARD_ACCOUNTS, TEST_CARDS, TEST_PSUS } from '../../src/sandbox/test-data.ts';

export interface OrderLine {
  readonly paymentId: string;
  readonly debtorAccountId: string;
  readonly amount: Money;
  readonly creditorAccount: string;
  readonly creditorName: string | null;
  readonly withinBank: boolean;
  readonly remittance: string | null;
  readonly initiatedOn: string;
}

export interface Order {
  readonly key: string;
  readonly bookingDate: string;
  readonly lines: readonly OrderLine[];
}

export type Outcome =
  | { readonly key: string; readonly outcome: 'booked' }
  | {
      readonly key: string;
      readonly outcome: 'rejected';
      readonly reasonCode: string;
      readonly reason: string;
    };

/** The bank's own id of an account, card account or card the sandbox's data names by its id. */
export const bankIdOf = (sandboxId: string) => `core-${sandboxId}`;

/** A customer only the bank knows: the gateway's database never had them, their accounts or cards. */
export const BANK_ONLY = {
  psu: { psuId: '199004302384', name: 'Berit Bankkund', customerType: 'private', corporateId: null } as Psu,
  salary: {
    accountId: 'core-7d41c0e2-0001',
    iban: 'SE0860000000000456789014',
    bban: '6000456789014',
    balanceMinor: 25_000_00,
  },
  savings: {
    accountId: 'core-7d41c0e2-0002',
    iban: 'SE8360000000000456789022',
    bban: '6000456789022',
    balanceMinor: 50_00,
  },
  cardAccount: { cardAccountId: 'core-7d41c0e2-0101', creditLimitMinor: 20_000_00, balanceMinor: -1_250_00 },
  debitCard: { cardId: 'core-7d41c0e2-0201', cardNumber: '4571731234563456' },
  creditCard: { cardId: 'core-7d41c0e2-0202', cardNumber: '5522881234567890' },
} as const;

function bankOnlyAccount(
  account: typeof BANK_ONLY.salary | typeof BANK_ONLY.savings,
  name: string,
): BankAccount {
  return {
    accountId: account.accountId,
    psuId: BANK_ONLY.psu.psuId,
    country: 'SE',
    currency: 'SEK',
    iban: account.iban,
    bban: account.bban,
    clearingNumber: '6000',
    bic: 'HANDSESS',
    accountType: 'CACC',
    name,
    ownerName: BANK_ONLY.psu.name,
    ownerType: 'private',
    ownerCorporateId: null,
  };
}

interface Held {
  readonly account: BankAccount;
  balanceMinor: number;
  blocked: boolean;
  readonly lines: StatementLine[];
}

export class InMemoryBook {
  readonly customers = new Map<string, Psu>();
  /** In the order the bank shows them. */
  readonly accounts = new Map<string, Held>();
  readonly cardAccounts = new Map<string, CardAccountRecord & { balanceMinor: number }>();
  readonly cards: Card[] = [];
  /** How often each payment was booked: the one number every exactly-once test checks. */
  readonly bookings = new Map<string, number>();

  constructor() {
    for (const psu of [...TEST_PSUS, BANK_ONLY.psu]) this.customers.set(psu.psuId, psu);
    const seeds = [...TEST_ACCOUNTS].sort((a, b) => a.position - b.position);
    for (const seed of seeds) {
      const owner = TEST_PSUS.find((psu) => psu.psuId === seed.psuId)!;
      const { position: _, balanceMinor, blocked, dailyLimitMinor: __, enforceRules: ___, ...record } = seed;
      const accountId = bankIdOf(seed.accountId);
      this.accounts.set(accountId, {
        account: { ...record, accountId, ownerType: owner.customerType, ownerCorporateId: owner.corporateId },
        balanceMinor,
        blocked: blocked ?? false,
        lines: [],
      });
    }
    for (const { position: _, ...cardAccount } of TEST_CARD_ACCOUNTS) {
      const cardAccountId = bankIdOf(cardAccount.cardAccountId);
      this.cardAccounts.set(cardAccountId, { ...cardAccount, cardAccountId });
    }
    for (const card of TEST_CARDS)
      this.cards.push({
        ...card,
        cardId: bankIdOf(card.cardId),
        accountId: card.accountId && bankIdOf(card.accountId),
        cardAccountId: card.cardAccountId && bankIdOf(card.cardAccountId),
      });
    for (const [account, name] of [
      [BANK_ONLY.salary, 'Lönekonto'],
      [BANK_ONLY.savings, 'Buffertkonto'],
    ] as const)
      this.accounts.set(account.accountId, {
        account: bankOnlyAccount(account, name),
        balanceMinor: account.balanceMinor,
        blocked: false,
        lines: [],
      });
    const { cardAccount, debitCard, creditCard } = BANK_ONLY;
    this.cardAccounts.set(cardAccount.cardAccountId, {
      cardAccountId: cardAccount.cardAccountId,
      psuId: BANK_ONLY.psu.psuId,
      currency: 'SEK',
      product: 'Handelsbanken Mastercard',
      ownerName: BANK_ONLY.psu.name,
      creditLimitMinor: cardAccount.creditLimitMinor,
      balanceMinor: cardAccount.balanceMinor,
    });
    this.cards.push(
      {
        cardId: debitCard.cardId,
        accountId: BANK_ONLY.salary.accountId,
        cardAccountId: null,
        maskedPan: maskPan(debitCard.cardNumber)!,
        name: 'Debit card',
      },
      {
        cardId: creditCard.cardId,
        accountId: null,
        cardAccountId: cardAccount.cardAccountId,
        maskedPan: maskPan(creditCard.cardNumber)!,
        name: 'Mastercard',
      },
    );
  }

  accountsOf(psuId: string): BankAccount[] {
    return [...this.accounts.values()]
      .map((held) => held.account)
      .filter((account) => account.psuId === psuId);
  }

  cardAccountsOf(psuId: string): CardAccountRecord[] {
    return [...this.cardAccounts.values()]
      .filter((cardAccount) => cardAccount.psuId === psuId)
      .map(({ balanceMinor: _, ...record }) => record);
  }

  cardsOf(ids: readonly string[]): Card[] {
    return this.cards.filter((card) => ids.includes(card.accountId ?? card.cardAccountId!));
  }

  setBalance(accountId: string, minor: number): void {
    this.accounts.get(accountId)!.balanceMinor = minor;
  }

  findByIban(iban: string): BankAccount | undefined {
    return [...this.accounts.values()].find((held) => held.account.iban === iban)?.account;
  }

  findByBban(country: string, bban: string): BankAccount | undefined {
    return [...this.accounts.values()].find(
      (held) => held.account.country === country && held.account.bban === bban,
    )?.account;
  }

  balanceOf(id: string): number | undefined {
    return this.accounts.get(id)?.balanceMinor ?? this.cardAccounts.get(id)?.balanceMinor;
  }

  statementOf(id: string, from: string, to: string, limit: number): StatementLine[] | undefined {
    const held = this.accounts.get(id);
    if (held === undefined) return this.cardAccounts.has(id) ? [] : undefined;
    return held.lines
      .filter((line) => line.bookedOn >= from && line.bookedOn <= to)
      .reverse()
      .slice(0, limit);
  }

  fundsOfIban(iban: string): { currency: string; availableMinor: number } | undefined {
    const account = this.findByIban(iban);
    return account && { currency: account.currency, availableMinor: this.balanceOf(account.accountId)! };
  }

  fundsOfCard(cardNumber: string): { currency: string; availableMinor: number } | undefined {
    const card = this.cards.find((candidate) => candidate.maskedPan === maskPan(cardNumber));
    if (card?.accountId) return this.fundsOfIban(this.accounts.get(card.accountId)!.account.iban!);
    const cardAccount = card?.cardAccountId ? this.cardAccounts.get(card.cardAccountId) : undefined;
    return (
      cardAccount && {
        currency: cardAccount.currency,
        availableMinor: cardAccount.creditLimitMinor + cardAccount.balanceMinor,
      }
    );
  }

  /** Decides an order never seen before: books every line, or none with the first line's reason. */
  decide(order: Order): Outcome {
    const reject = (reasonCode: string, reason: string): Outcome => ({
      key: order.key,
      outcome: 'rejected',
      reasonCode,
      reason,
    });
    const taken = new Map<string, number>();
    const debits: Money[] = [];
    for (const line of order.lines) {
      const held = this.accounts.get(line.debtorAccountId);
      if (held === undefined) return reject('AC02', 'the bank has no such debtor account');
      if (held.blocked) return reject('AC06', 'the debtor account is blocked');
      const debit =
        line.amount.currency === held.account.currency
          ? line.amount
          : convert(
              line.amount,
              sandboxRates.quote(held.account.currency, line.amount.currency, order.bookingDate),
            );
      const already = taken.get(held.account.accountId) ?? 0;
      if (already + debit.minor > held.balanceMinor)
        return reject('AM04', 'insufficient funds on the debtor account');
      taken.set(held.account.accountId, already + debit.minor);
      debits.push(debit);
    }
    for (const [index, line] of order.lines.entries()) this.bookLine(order, line, debits[index]!);
    return { key: order.key, outcome: 'booked' };
  }

  private bookLine(order: Order, line: OrderLine, debit: Money): void {
    const debtor = this.accounts.get(line.debtorAccountId)!;
    const creditor = line.withinBank
      ? [...this.accounts.values()].find((held) =>
          [held.account.bban, held.account.iban].includes(line.creditorAccount),
        )
      : undefined;
    const said = {
      bookedOn: order.bookingDate,
      transactionDate: line.initiatedOn,
      debtorName: debtor.account.ownerName,
      creditorName: line.creditorName ?? creditor?.account.ownerName ?? null,
      remittance: line.remittance,
    };
    debtor.balanceMinor -= debit.minor;
    debtor.lines.push({ amountMinor: -debit.minor, currency: debit.currency, ...said });
    if (creditor !== undefined && creditor.account.currency === line.amount.currency) {
      creditor.balanceMinor += line.amount.minor;
      creditor.lines.push({ amountMinor: line.amount.minor, currency: line.amount.currency, ...said });
    }
    this.bookings.set(line.paymentId, (this.bookings.get(line.paymentId) ?? 0) + 1);
  }
}
