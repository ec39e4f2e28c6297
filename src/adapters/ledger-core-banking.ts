// The built-in core banking system: a double-entry ledger in the gateway's database. A booking order is
// booked in one call of the database function ledger_book (store/definitions/ledger_book.sql), atomically,
// with the accounts it debits and credits locked in one order: each debtor is debited in its account's
// currency; within the bank the creditor account is credited, otherwise the bank's clearing account for
// the currency; a payment in another currency than the account's goes through the bank's fx accounts.
// Live, the ledger rejects what the accounts cannot pay (the whole order, booking nothing); the sandbox
// books against generous balances. Every answer is kept under the order's key. One call because a round
// trip per check and per insert cost executions more than the work (issue 18); the rules' words and
// reasons stay here, the database applies them. Being in the gateway's database, the ledger can also book
// an execution and record it in one call (ledgerRecordedBookings): a capability beside the port, which the
// composition root wires (services/shared/recorded-bookings.ts says what it must do).
import type { Clock } from '../domain/clock.ts';
import { convert } from '../domain/money.ts';
import { ACCOUNT_TYPE_NOT_FOR_OTHER_BANKS, ACCOUNT_TYPES_NOT_FOR_PAYMENTS } from '../domain/payment-rules.ts';
import type { BookingLine, BookingOrder, BookingOutcome, CoreBanking } from '../ports/core-banking.ts';
import type { ExchangeRates } from '../ports/exchange-rates.ts';
import {
  findAccountByBban,
  findAccountByIban,
  findAccountById,
  findAccountOfCard,
  findCardAccount,
  findCardAccountOfCard,
} from '../store/customers-repository.ts';
import type { StoreDb } from '../store/database.ts';
import { bookedBalances, bookedFundsByIban } from '../store/ledger/balances.ts';
import {
  type AccountCurrencies,
  bookLedgerOrder,
  type LedgerLine,
  type LedgerRules,
} from '../store/ledger/booking.ts';
import { type ExecutionRecord, executeLedgerOrder } from '../store/ledger/execution.ts';
import { statementOf } from '../store/ledger/statements.ts';

export interface LedgerOptions {
  readonly db: StoreDb;
  /**
   * Balances, statements and funds checks (account information): a standby's handle when
   * DATABASE_READ_URL names one (Store.readDb). Bookings and the lookups of a payment use `db`.
   */
  readonly readDb?: StoreDb;
  /**
   * Live: reject what the accounts cannot pay. The sandbox books whatever it is given, but from the
   * accounts marked to enforce their rules (its rejection scenarios).
   */
  readonly enforceFunds: boolean;
  readonly rates: ExchangeRates;
  readonly clock: Clock;
}

const reject = (reasonCode: string, reason: string): BookingOutcome => ({
  booked: false,
  reasonCode,
  reason,
});

/**
 * What the accounts cannot pay, checked line by line in the order's order and in this order of rules:
 * a blocked account, an account type that may not pay (other banks, or at all), funds (the booked
 * balance less what the order already takes from the account), the daily limit (what the account paid
 * out on the booking date, and this order).
 */
const RULES: LedgerRules = {
  notForOtherBanks: ACCOUNT_TYPE_NOT_FOR_OTHER_BANKS,
  notForPayments: ACCOUNT_TYPES_NOT_FOR_PAYMENTS,
  refusals: {
    blocked: reject('AC06', 'the debtor account is blocked'),
    otherBanks: reject('AG01', 'payments to other banks cannot be made from this type of account'),
    accountType: reject('AG01', 'payments cannot be made from this type of account'),
    funds: reject('AM04', 'insufficient funds on the debtor account'),
    dailyLimit: reject('AM02', 'the daily limit of the debtor account is exceeded'),
  },
};

export function ledgerCoreBanking(options: LedgerOptions): CoreBanking {
  const { db } = options;
  const readDb = options.readDb ?? db;
  return {
    findAccount(lookup) {
      if (lookup.kind === 'iban') return findAccountByIban(db, lookup.iban);
      if (lookup.kind === 'bban') return findAccountByBban(db, lookup.country, lookup.bban);
      return findAccountById(db, lookup.accountId);
    },

    findCardAccount: (cardAccountId) => findCardAccount(db, cardAccountId),

    balances: (accountIds) => bookedBalances(readDb, accountIds),

    statement: (accountId, period) => statementOf(readDb, accountId, period),

    async availableFunds(source) {
      if ('iban' in source) {
        const funds = await bookedFundsByIban(readDb, source.iban);
        return funds === undefined ? undefined : { currency: funds.currency, availableMinor: funds.balance };
      }
      const account = await findAccountOfCard(readDb, source.cardNumber);
      if (account !== undefined) {
        return { currency: account.currency, availableMinor: await bookedBalanceOf(account.accountId) };
      }
      // A credit card: what is left of its limit (its balance is negative: what is owed).
      const cardAccount = await findCardAccountOfCard(readDb, source.cardNumber);
      if (cardAccount === undefined) return undefined;
      return {
        currency: cardAccount.currency,
        availableMinor: cardAccount.creditLimitMinor + (await bookedBalanceOf(cardAccount.cardAccountId)),
      };
    },

    async book(order: BookingOrder): Promise<BookingOutcome> {
      return bookConverted(options, order, (lines) =>
        bookLedgerOrder(
          db,
          { key: order.key, bookingDate: order.bookingDate, lines },
          RULES,
          options.clock(),
        ),
      );
    },
  };

  async function bookedBalanceOf(id: string): Promise<number> {
    return (await bookedBalances(readDb, [id])).get(id) ?? 0;
  }
}

/**
 * The ledger's one-transaction booking of an execution (services/shared/recorded-bookings.ts): it is
 * in the gateway's database, so an order of one payment is booked and the execution recorded in one
 * call. Undefined when nothing was done (the payment no longer waits unmarked in `record.from`).
 */
export function ledgerRecordedBookings(options: LedgerOptions) {
  return {
    async bookRecorded(order: BookingOrder, record: ExecutionRecord) {
      const answer = await bookConverted(options, order, (lines) =>
        executeLedgerOrder(
          options.db,
          { key: order.key, bookingDate: order.bookingDate, lines },
          RULES,
          options.clock(),
          record,
        ),
      );
      if (!answer.moved) return undefined;
      const { moved: _moved, ...outcome } = answer;
      return outcome;
    },
  };
}

function ledgerLine(options: LedgerOptions, line: BookingLine): LedgerLine {
  return {
    paymentId: line.paymentId,
    debtorAccountId: line.debtorAccountId,
    currency: line.amount.currency,
    minor: line.amount.minor,
    creditorAccount: line.creditorAccount,
    creditorName: line.creditorName,
    withinBank: line.withinBank,
    toOtherBank: line.product === 'other-bank-domestic-credit-transfer',
    remittance: line.remittance,
    initiatedOn: line.initiatedOn,
    // Live every account's rules; in the sandbox those of the accounts that rehearse rejections.
    enforce: options.enforceFunds,
  };
}

/**
 * Asks the ledger once with the instructed amounts; when it names debtor accounts in another
 * currency, asks again with their debits converted at the booking date's rate (the rates are the
 * gateway's, so the ledger cannot convert itself).
 */
async function bookConverted<T extends object>(
  options: LedgerOptions,
  order: BookingOrder,
  call: (lines: readonly LedgerLine[]) => Promise<T | AccountCurrencies>,
): Promise<T> {
  const lines = order.lines.map((line) => ledgerLine(options, line));
  const answer = await call(lines);
  if (!('accountCurrencies' in answer)) return answer;
  const converted = order.lines.map((line, index): LedgerLine => {
    const currency = answer.accountCurrencies[line.debtorAccountId];
    if (currency === undefined || currency === line.amount.currency) return lines[index]!;
    const quote = options.rates.quote(currency, line.amount.currency, order.bookingDate);
    return { ...lines[index]!, debitMinor: convert(line.amount, quote).minor };
  });
  const outcome = await call(converted);
  if ('accountCurrencies' in outcome)
    throw new Error(`booking order ${order.key}: no debit in ${Object.values(outcome.accountCurrencies)}`);
  return outcome;
}
