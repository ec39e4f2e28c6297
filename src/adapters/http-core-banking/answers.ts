// What the core banking system answers, as docs/core-banking-api.yaml describes it: checked at the
// boundary (a field the gateway does not know is ignored, a missing or mistyped one refused) and
// mapped to the domain's objects, field by field.
import { type Static, type TSchema, Type } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import type {
  AccountRecord,
  BankAccount,
  Card,
  CardAccountRecord,
  Psu,
  StatementLine,
} from '../../domain/accounts.ts';
import type { BookingOutcome } from '../../ports/core-banking.ts';
import { CoreBankingContractError } from './client.ts';

const Text = Type.String({ minLength: 1 });
const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
const Currency = Type.String({ pattern: '^[A-Z]{3}$' });
const IsoDate = Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$' });

export const AccountAnswer = Type.Object({
  accountId: Text,
  psuId: Text,
  country: Type.String({ pattern: '^[A-Z]{2}$' }),
  currency: Currency,
  iban: Nullable(Text),
  bban: Nullable(Text),
  clearingNumber: Nullable(Text),
  bic: Nullable(Text),
  accountType: Text,
  name: Type.String(),
  ownerName: Type.String(),
  ownerType: Type.Union([Type.Literal('private'), Type.Literal('corporate')]),
  ownerCorporateId: Nullable(Text),
});

export const CardAccountAnswer = Type.Object({
  cardAccountId: Text,
  psuId: Text,
  currency: Currency,
  product: Type.String(),
  ownerName: Type.String(),
  creditLimitMinor: Type.Integer({ minimum: 0 }),
});

export const CustomerAnswer = Type.Object({
  psuId: Text,
  name: Type.String(),
  customerType: Type.Union([Type.Literal('private'), Type.Literal('corporate')]),
  corporateId: Nullable(Text),
});

export const CustomerAccountsAnswer = Type.Object({ accounts: Type.Array(AccountAnswer) });

export const CustomerCardAccountsAnswer = Type.Object({ cardAccounts: Type.Array(CardAccountAnswer) });

export const CardsAnswer = Type.Object({
  cards: Type.Array(
    Type.Object({
      cardId: Text,
      accountId: Nullable(Text),
      cardAccountId: Nullable(Text),
      maskedPan: Type.String({ pattern: '^[0-9]{6}\\*{6}[0-9]{4}$' }),
      name: Type.String(),
    }),
  ),
});

export const BalancesAnswer = Type.Object({
  balances: Type.Array(Type.Object({ accountId: Text, bookedMinor: Type.Integer() })),
});

export const StatementAnswer = Type.Object({
  lines: Type.Array(
    Type.Object({
      amountMinor: Type.Integer(),
      currency: Currency,
      bookedOn: IsoDate,
      transactionDate: IsoDate,
      debtorName: Nullable(Type.String()),
      creditorName: Nullable(Type.String()),
      remittance: Nullable(Type.String()),
    }),
  ),
});

export const FundsAnswer = Type.Object({ currency: Currency, availableMinor: Type.Integer() });

export const BookingAnswer = Type.Union([
  Type.Object({ key: Text, outcome: Type.Literal('booked') }),
  Type.Object({
    key: Text,
    outcome: Type.Literal('rejected'),
    reasonCode: Type.String({ pattern: '^[A-Z0-9]{4}$' }),
    reason: Type.String({ maxLength: 500 }),
  }),
]);

/** The body of an answer, checked against its schema; a body that does not fit is the system's fault. */
export function checked<T extends TSchema>(schema: T, body: unknown, what: string): Static<T> {
  if (Value.Check(schema, body)) return body;
  const first = Value.Errors(schema, body).First();
  const where = first === undefined ? '' : `: ${first.path || '/'} ${first.message}`;
  throw new CoreBankingContractError(
    `core banking system, ${what}: an answer the contract does not allow${where}`,
  );
}

export function toBankAccount(answer: Static<typeof AccountAnswer>): BankAccount {
  return {
    accountId: answer.accountId,
    psuId: answer.psuId,
    country: answer.country,
    currency: answer.currency,
    iban: answer.iban,
    bban: answer.bban,
    clearingNumber: answer.clearingNumber,
    bic: answer.bic,
    accountType: answer.accountType,
    name: answer.name,
    ownerName: answer.ownerName,
    ownerType: answer.ownerType,
    ownerCorporateId: answer.ownerCorporateId,
  };
}

export function toPsu(answer: Static<typeof CustomerAnswer>): Psu {
  return {
    psuId: answer.psuId,
    name: answer.name,
    customerType: answer.customerType,
    corporateId: answer.corporateId,
  };
}

/** An account as a PSU's list shows it (what the payment rules need of its owner stays out). */
export function toAccountRecord(answer: Static<typeof AccountAnswer>): AccountRecord {
  const { ownerType: _, ownerCorporateId: __, ...record } = toBankAccount(answer);
  return record;
}

export function toCard(answer: Static<typeof CardsAnswer>['cards'][number]): Card {
  return {
    cardId: answer.cardId,
    accountId: answer.accountId,
    cardAccountId: answer.cardAccountId,
    maskedPan: answer.maskedPan,
    name: answer.name,
  };
}

export function toCardAccount(answer: Static<typeof CardAccountAnswer>): CardAccountRecord {
  return {
    cardAccountId: answer.cardAccountId,
    psuId: answer.psuId,
    currency: answer.currency,
    product: answer.product,
    ownerName: answer.ownerName,
    creditLimitMinor: answer.creditLimitMinor,
  };
}

export function toStatementLine(line: Static<typeof StatementAnswer>['lines'][number]): StatementLine {
  return {
    amountMinor: line.amountMinor,
    currency: line.currency,
    bookedOn: line.bookedOn,
    transactionDate: line.transactionDate,
    debtorName: line.debtorName,
    creditorName: line.creditorName,
    remittance: line.remittance,
  };
}

export function toOutcome(answer: Static<typeof BookingAnswer>): BookingOutcome {
  if (answer.outcome === 'booked') return { booked: true };
  // Kept with the payment and shown to the TPP: no control characters (a database refuses NUL).
  // biome-ignore lint/suspicious/noControlCharactersInRegex: they are what is removed
  const reason = answer.reason.replace(/[\u0000-\u001f\u007f]/g, ' ');
  return { booked: false, reasonCode: answer.reasonCode, reason };
}
