// GET /sandbox/test-data: the response schema (it also serializes: a field missing here is dropped).
import { type Static, Type } from '@sinclair/typebox';

const TestAccount = Type.Object({
  accountId: Type.String(),
  iban: Type.Optional(Type.String()),
  bban: Type.Optional(Type.String()),
  clearingNumber: Type.Optional(Type.String()),
  currency: Type.String(),
  country: Type.String(),
  name: Type.String(),
  ownerName: Type.String(),
});

const TestCardAccount = Type.Object({
  cardAccountId: Type.String(),
  psuId: Type.String(),
  currency: Type.String(),
  product: Type.String(),
  ownerName: Type.String(),
  creditLimit: Type.Object({ currency: Type.String(), amount: Type.String() }),
});

const TestCard = Type.Object({
  cardId: Type.String(),
  maskedPan: Type.String({ description: 'First six and last four digits' }),
  name: Type.String(),
  accountId: Type.Optional(Type.String({ description: 'A debit card: the account it draws on' })),
  cardAccountId: Type.Optional(Type.String({ description: 'A credit card: its card account' })),
});

const TestCreditor = Type.Object({
  bank: Type.String(),
  country: Type.String(),
  accountType: Type.Union([Type.Literal('IBAN'), Type.Literal('BBAN')]),
  account: Type.String(),
  bic: Type.Optional(Type.String()),
  product: Type.String({ description: 'The payment product that pays this account' }),
});

export const TestDataSchema = Type.Object({
  app: Type.Optional(
    Type.Object(
      { clientId: Type.String(), redirectUri: Type.String() },
      { description: 'The seeded sandbox app: its client_id and its one redirect URI' },
    ),
  ),
  psuPassword: Type.String({ description: "Every test PSU's password (the live login page asks for it)" }),
  sandboxUsers: Type.Array(Type.Object({ name: Type.String(), psuId: Type.String() }), {
    description:
      "The values of X-Sandbox-User on the authorize request (the real sandbox's user names) and the test PSU each one picks",
  }),
  scenarios: Type.Array(
    Type.Object({
      trigger: Type.String({ description: 'What to do, in a sentence' }),
      when: Type.Object(
        {
          action: Type.String({
            description: 'execute, authorize, decoupled, consent, read, funds-confirmation or settle',
          }),
          psuId: Type.Optional(Type.String()),
          account: Type.Optional(
            Type.String({ description: 'The debtor BBAN, or the IBAN of a funds confirmation' }),
          ),
          amount: Type.Optional(Type.String()),
          currency: Type.Optional(Type.String()),
          frequencyPerDay: Type.Optional(Type.Integer()),
          reads: Type.Optional(Type.Integer()),
          product: Type.Optional(Type.String({ description: 'The payment product (settle)' })),
          creditorAccount: Type.Optional(Type.String({ description: 'The creditor BBAN (settle)' })),
          advance: Type.Optional(
            Type.String({ description: 'Then advance the app clock so (POST /sandbox/clock)' }),
          ),
          validDays: Type.Optional(Type.Integer({ description: "The consent's validity in days" })),
        },
        { description: 'The trigger as data' },
      ),
      outcome: Type.String({ description: 'What happens, in a sentence' }),
      expected: Type.Object(
        {
          transactionStatus: Type.Optional(Type.String()),
          executedStatus: Type.Optional(Type.String()),
          reasonCode: Type.Optional(Type.String()),
          redirectError: Type.Optional(Type.String()),
          decoupledPolls: Type.Optional(Type.Array(Type.String())),
          consentStatus: Type.Optional(Type.String()),
          readStatus: Type.Optional(Type.Integer()),
          readCode: Type.Optional(Type.String()),
          refreshError: Type.Optional(Type.String()),
          fundsAvailable: Type.Optional(Type.Boolean()),
        },
        { description: 'The outcome as data: the fields of the answers' },
      ),
    }),
  ),
  psus: Type.Array(
    Type.Object({
      psuId: Type.String(),
      name: Type.String(),
      type: Type.Union([Type.Literal('private'), Type.Literal('corporate')]),
      corporateId: Type.Optional(Type.String()),
      accounts: Type.Array(TestAccount),
    }),
  ),
  cardAccounts: Type.Array(TestCardAccount),
  cards: Type.Array(TestCard),
  creditors: Type.Array(TestCreditor, { description: 'Accounts at other banks to pay to' }),
});

export type SandboxTestData = Static<typeof TestDataSchema>;
export type SandboxAccount = Static<typeof TestAccount>;

export const ResetAnswer = Type.Object({
  reset: Type.Literal(true),
  date: Type.String({ description: "The bank's date the history now runs up to" }),
});

export const CallbackAnswer = Type.Object({
  code: Type.Optional(Type.String()),
  state: Type.Optional(Type.String()),
  error: Type.Optional(Type.String()),
  error_description: Type.Optional(Type.String()),
});
