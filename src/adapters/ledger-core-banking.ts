// The built-in core banking system: a double-entry ledger in the gateway's database. A booking order
// is booked in one transaction with the debtor accounts' rows locked: each debtor is debited in its
// account's currency; within the bank the creditor account is credited, otherwise the bank's clearing
// account for the currency; a payment in another currency than the account's goes through the bank's
// fx accounts. Live, the ledger rejects what the accounts cannot pay (the whole order, booking
// nothing); the sandbox books against generous balances. Every answer is kept under the order's key.
import { randomUUID } from 'node:crypto';
import type { Clock } from '../domain/clock.ts';
import { convert, type Money } from '../domain/money.ts';
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
import type { Db, StoreDb } from '../store/database.ts';
import {
  bookedBalances,
  debitedOn,
  type Entry,
  entriesSum,
  findLedgerAccountByNumber,
  findOrderOutcome,
  insertBooking,
  type LedgerAccount,
  lockLedgerAccount,
  recordOrderOutcome,
  statementOf,
} from '../store/ledger-repository.ts';

export interface LedgerOptions {
  readonly db: StoreDb;
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

/** A line ready to book: its debtor account (locked) and the debit in that account's currency. */
interface Planned {
  readonly line: BookingLine;
  readonly account: LedgerAccount;
  readonly debit: Money;
}

export function ledgerCoreBanking(options: LedgerOptions): CoreBanking {
  const { db, rates } = options;

  /** Why the account cannot pay `debit` on top of what this order already takes from it, if it cannot. */
  async function refusal(
    trx: Db,
    planned: Planned,
    taken: number,
    bookingDate: string,
  ): Promise<BookingOutcome | undefined> {
    const { account, line, debit } = planned;
    if (account.blocked) return reject('AC06', 'the debtor account is blocked');
    if (
      line.product === 'other-bank-domestic-credit-transfer' &&
      account.accountType === ACCOUNT_TYPE_NOT_FOR_OTHER_BANKS
    ) {
      return reject('AG01', 'payments to other banks cannot be made from this type of account');
    }
    if (ACCOUNT_TYPES_NOT_FOR_PAYMENTS.includes(account.accountType)) {
      return reject('AG01', 'payments cannot be made from this type of account');
    }
    const available = account.openingMinor + (await entriesSum(trx, account.accountId));
    if (taken + debit.minor > available) return reject('AM04', 'insufficient funds on the debtor account');
    if (
      account.dailyLimitMinor !== null &&
      (await debitedOn(trx, account.accountId, bookingDate)) + taken + debit.minor > account.dailyLimitMinor
    ) {
      return reject('AM02', 'the daily limit of the debtor account is exceeded');
    }
    return undefined;
  }

  async function bookLine(trx: Db, planned: Planned, bookingDate: string): Promise<void> {
    const { line, account, debit } = planned;
    const entries: Entry[] = [
      { ledgerAccount: account.accountId, currency: debit.currency, amountMinor: -debit.minor },
    ];
    if (debit.currency !== line.amount.currency) {
      entries.push(
        { ledgerAccount: `fx:${debit.currency}`, currency: debit.currency, amountMinor: debit.minor },
        {
          ledgerAccount: `fx:${line.amount.currency}`,
          currency: line.amount.currency,
          amountMinor: -line.amount.minor,
        },
      );
    }
    const internal = line.withinBank ? await findLedgerAccountByNumber(trx, line.creditorAccount) : undefined;
    const creditor =
      internal !== undefined && internal.currency === line.amount.currency
        ? internal.accountId
        : `clearing:${line.amount.currency}`;
    entries.push({ ledgerAccount: creditor, currency: line.amount.currency, amountMinor: line.amount.minor });
    const booked = await insertBooking(
      trx,
      {
        bookingId: randomUUID(),
        paymentId: line.paymentId,
        bookedOn: bookingDate,
        transactionDate: [line.initiatedOn, bookingDate].sort()[0]!,
        debtorName: account.ownerName,
        creditorName: line.creditorName ?? internal?.ownerName ?? null,
        remittance: line.remittance,
        createdAt: options.clock(),
      },
      entries,
    );
    if (!booked) throw new Error(`payment ${line.paymentId} is booked already`);
  }

  return {
    findAccount(lookup) {
      if (lookup.kind === 'iban') return findAccountByIban(db, lookup.iban);
      if (lookup.kind === 'bban') return findAccountByBban(db, lookup.country, lookup.bban);
      return findAccountById(db, lookup.accountId);
    },

    findCardAccount: (cardAccountId) => findCardAccount(db, cardAccountId),

    balances: (accountIds) => bookedBalances(db, accountIds),

    statement: (accountId, period) => statementOf(db, accountId, period),

    async availableFunds(source) {
      if ('iban' in source) {
        const account = await findAccountByIban(db, source.iban);
        if (account === undefined) return undefined;
        return { currency: account.currency, availableMinor: await bookedBalanceOf(account.accountId) };
      }
      const account = await findAccountOfCard(db, source.cardNumber);
      if (account !== undefined) {
        return { currency: account.currency, availableMinor: await bookedBalanceOf(account.accountId) };
      }
      // A credit card: what is left of its limit (its balance is negative: what is owed).
      const cardAccount = await findCardAccountOfCard(db, source.cardNumber);
      if (cardAccount === undefined) return undefined;
      return {
        currency: cardAccount.currency,
        availableMinor: cardAccount.creditLimitMinor + (await bookedBalanceOf(cardAccount.cardAccountId)),
      };
    },

    book(order: BookingOrder) {
      return db.transaction(async (trx): Promise<BookingOutcome> => {
        // Bookings from one account go one by one; accounts are locked in one order, so orders never deadlock.
        const accounts = new Map<string, LedgerAccount>();
        for (const id of [...new Set(order.lines.map((line) => line.debtorAccountId))].sort()) {
          const account = await lockLedgerAccount(trx, id);
          if (account === undefined) throw new Error(`booking order ${order.key}: no account ${id}`);
          accounts.set(id, account);
        }
        // Under the locks: an order asked again (a retry, another process) answers what it answered.
        const earlier = await findOrderOutcome(trx, order.key);
        if (earlier !== undefined) return earlier;
        const planned = order.lines.map((line): Planned => {
          const account = accounts.get(line.debtorAccountId)!;
          const debit =
            line.amount.currency === account.currency
              ? line.amount
              : convert(line.amount, rates.quote(account.currency, line.amount.currency, order.bookingDate));
          return { line, account, debit };
        });
        let outcome: BookingOutcome = { booked: true };
        const taken = new Map<string, number>();
        for (const item of planned) {
          // Live every account's rules; in the sandbox those of the accounts that rehearse rejections.
          if (options.enforceFunds || item.account.enforceRules) {
            const already = taken.get(item.account.accountId) ?? 0;
            const refused = await refusal(trx, item, already, order.bookingDate);
            if (refused !== undefined) {
              outcome = refused;
              break;
            }
            taken.set(item.account.accountId, already + item.debit.minor);
          }
        }
        if (outcome.booked) for (const item of planned) await bookLine(trx, item, order.bookingDate);
        if (!(await recordOrderOutcome(trx, order.key, outcome, options.clock()))) {
          throw new Error(`booking order ${order.key} was answered twice`);
        }
        return outcome;
      });
    },
  };

  async function bookedBalanceOf(id: string): Promise<number> {
    return (await bookedBalances(db, [id])).get(id) ?? 0;
  }
}
