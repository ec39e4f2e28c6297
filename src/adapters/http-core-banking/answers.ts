// What the core banking system answers, as docs/core-banking-api.yaml describes it: checked at the
// boundary (a field the gateway does not know is ignored, a missing or mistyped one refused) and
// mapped to the domain's objects, field by field.
import { type Static, type TSchema, Type } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import type { BankAccount, CardAccountRecord } from '../../domain/accounts.ts';
import type { BookingOutcome, StatementLine } from '../../ports/core-banking.ts';
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
