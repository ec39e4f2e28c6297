// The bank's customers (PSUs), their accounts, cards and credit card accounts, as the bank's systems
// describe them.

export type CustomerKind = 'private' | 'corporate';

export interface Psu {
  readonly psuId: string;
  readonly name: string;
  readonly customerType: CustomerKind;
  readonly corporateId: string | null;
}

/** An account of the bank, held by one PSU. */
export interface AccountRecord {
  readonly accountId: string;
  readonly psuId: string;
  readonly country: string;
  readonly currency: string;
  readonly iban: string | null;
  readonly bban: string | null;
  readonly clearingNumber: string | null;
  readonly bic: string | null;
  readonly accountType: string;
  readonly name: string;
  readonly ownerName: string;
}

/** An account with what the payment rules need to know of its owner. */
export interface BankAccount extends AccountRecord {
  readonly ownerType: CustomerKind;
  readonly ownerCorporateId: string | null;
}

/** An account with its booked balance now, in minor units of its currency. */
export interface AccountWithBalance extends AccountRecord {
  readonly balanceMinor: number;
}

/** A card draws on an account (debit card) or on a card account (credit card), never both. */
export interface Card {
  readonly cardId: string;
  readonly accountId: string | null;
  readonly cardAccountId: string | null;
  readonly maskedPan: string;
  readonly name: string;
}

/** A credit card account: an account of its own, with a credit limit. */
export interface CardAccountRecord {
  readonly cardAccountId: string;
  readonly psuId: string;
  readonly currency: string;
  readonly product: string;
  readonly ownerName: string;
  readonly creditLimitMinor: number;
}

/** One line of an account's statement: an entry booked on it, with what the booking said. */
export interface StatementLine {
  /** Negative: debited. */
  readonly amountMinor: number;
  readonly currency: string;
  readonly bookedOn: string;
  readonly transactionDate: string;
  readonly debtorName: string | null;
  readonly creditorName: string | null;
  readonly remittance: string | null;
}

/** A card number as the bank keeps it: first six and last four digits; undefined when it is no card number. */
export function maskPan(cardNumber: string): string | undefined {
  const digits = cardNumber.replace(/[\s-]/g, '');
  if (!/^\d{12,19}$/.test(digits)) return undefined;
  return `${digits.slice(0, 6)}******${digits.slice(-4)}`;
}
