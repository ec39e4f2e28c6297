// What the account-information answers are made of (API-NOTES "Accounts, cards, consents, funds"):
// accounts with balances, transactions from the bank's statements, and the period a read may ask for.
import type { AccountRecord, AccountWithBalance, StatementLine } from '../../domain/accounts.ts';
import { addDays, addMonths, isIsoDate } from '../../domain/dates.ts';
import { apiError } from '../../domain/errors.ts';
import { formatAmount } from '../../domain/money.ts';
import { type ServiceContext, today } from '../shared/context.ts';

/** At most this many transactions per answer, and no further back than 15 months (as the real service). */
export const MAX_TRANSACTIONS = 600;
const MAX_HISTORY_MONTHS = 15;
/** Without dateFrom, a read covers this many days up to dateTo (the real service's default window). */
const DEFAULT_TRANSACTION_DAYS = 90;

export interface AmountText {
  readonly content: string;
  readonly currency: string;
}

export interface Balance {
  readonly amount: AmountText;
  readonly balanceType: 'booked' | 'available' | 'AVAILABLE_AMOUNT';
}

export interface AccountBase {
  readonly accountId: string;
  readonly iban?: string;
  readonly bban?: string;
  readonly clearingNumber?: string;
  readonly bic?: string;
  readonly currency: string;
  readonly accountType: string;
  readonly name: string;
  readonly ownerName: string;
}

export interface Transaction {
  readonly amount: AmountText;
  readonly bookingDate?: string;
  readonly ledgerDate?: string;
  readonly transactionDate: string;
  readonly valueDate: string;
  readonly creditDebit: 'DEBITED' | 'CREDITED';
  readonly creditorName?: string;
  readonly debtorName?: string;
  readonly remittanceInformation?: string;
  readonly status: 'BOOKED' | 'PENDING';
}

/** An account's identifying fields, without the empty ones. */
export function accountBase(account: AccountRecord): AccountBase {
  return {
    accountId: account.accountId,
    ...(account.iban === null ? {} : { iban: account.iban }),
    ...(account.bban === null ? {} : { bban: account.bban }),
    ...(account.clearingNumber === null ? {} : { clearingNumber: account.clearingNumber }),
    ...(account.bic === null ? {} : { bic: account.bic }),
    currency: account.currency,
    accountType: account.accountType,
    name: account.name,
    ownerName: account.ownerName,
  };
}

/** Booked and available balance of a current or savings account (nothing is reserved: they agree). */
export function accountBalances(currency: string, bookedMinor: number): Balance[] {
  const amount = { content: formatAmount({ currency, minor: bookedMinor }), currency };
  return [
    { amount, balanceType: 'booked' },
    { amount, balanceType: 'available' },
  ];
}

/**
 * How an account-information API writes its records. Version 1 (ours since the start; unchanged, so
 * no v1 client breaks): bban is the whole account number with the clearing number, balances are
 * `booked` and `available`. Version 2 (the real service's, which clients of it parse): bban is the
 * account number without the clearing number (9 digits at this bank), clearingNumber stands apart,
 * and the available balance is `AVAILABLE_AMOUNT`; the booked one keeps its name.
 */
export interface RecordShape {
  account(account: AccountRecord): AccountBase;
  balances(currency: string, bookedMinor: number): Balance[];
}

export const V1_RECORDS: RecordShape = { account: accountBase, balances: accountBalances };

export const V2_RECORDS: RecordShape = {
  account(account) {
    const base = accountBase(account);
    const clearing = account.clearingNumber;
    if (account.bban === null || clearing === null || !account.bban.startsWith(clearing)) return base;
    return Object.assign(base, { bban: account.bban.slice(clearing.length) });
  },
  balances(currency, bookedMinor) {
    const amount = { content: formatAmount({ currency, minor: bookedMinor }), currency };
    return [
      { amount, balanceType: 'booked' },
      { amount, balanceType: 'AVAILABLE_AMOUNT' },
    ];
  },
};

/** A PSU's accounts (the PSU directory's) with their booked balances now (the core banking system's). */
export async function accountsWithBalances(
  context: ServiceContext,
  psuId: string,
): Promise<AccountWithBalance[]> {
  const accounts = await context.psuDirectory.accountsOf(psuId);
  const balances = await context.coreBanking.balances(accounts.map((account) => account.accountId));
  // Object.assign, not `{ ...account, balanceMinor }`: docs/decisions.md, "Spreads followed by members".
  return accounts.map((account) =>
    Object.assign({}, account, { balanceMinor: balances.get(account.accountId) ?? 0 }),
  );
}

/**
 * The period of a transactions read: dateTo today by default, dateFrom DEFAULT_TRANSACTION_DAYS before
 * dateTo by default (older clients send no dates), at most 15 months back.
 */
export function transactionPeriod(
  context: ServiceContext,
  query: { dateFrom?: string; dateTo?: string },
): { from: string; to: string } {
  const day = today(context);
  for (const name of ['dateFrom', 'dateTo'] as const) {
    const value = query[name];
    if (value !== undefined && !isIsoDate(value)) {
      throw apiError('FORMAT_ERROR', `${name} must be an ISO date (YYYY-MM-DD)`, name);
    }
  }
  const to = query.dateTo ?? day;
  const earliest = addMonths(day, -MAX_HISTORY_MONTHS);
  const back = `must not be before ${earliest} (${MAX_HISTORY_MONTHS} months back)`;
  if (query.dateFrom === undefined && to < earliest)
    throw apiError('FORMAT_ERROR', `dateTo ${back}`, 'dateTo');
  const from = query.dateFrom ?? [addDays(to, -DEFAULT_TRANSACTION_DAYS), earliest].sort().at(-1)!;
  if (from > to) throw apiError('FORMAT_ERROR', 'dateFrom must not be after dateTo', 'dateFrom');
  if (from < earliest) throw apiError('FORMAT_ERROR', `dateFrom ${back}`, 'dateFrom');
  return { from, to };
}

/** A booked statement line as a transaction of the account it was booked on. */
function bookedTransaction(line: StatementLine): Transaction {
  return {
    amount: {
      content: formatAmount({ currency: line.currency, minor: Math.abs(line.amountMinor) }),
      currency: line.currency,
    },
    bookingDate: line.bookedOn,
    ledgerDate: line.bookedOn,
    transactionDate: line.transactionDate,
    valueDate: line.bookedOn,
    creditDebit: line.amountMinor < 0 ? 'DEBITED' : 'CREDITED',
    ...(line.creditorName === null ? {} : { creditorName: line.creditorName }),
    ...(line.debtorName === null ? {} : { debtorName: line.debtorName }),
    ...(line.remittance === null ? {} : { remittanceInformation: line.remittance }),
    status: 'BOOKED',
  };
}

/** Booked transactions of an account or card account in the period, newest first (at most `limit`). */
export async function bookedTransactions(
  context: ServiceContext,
  accountId: string,
  period: { from: string; to: string },
  limit: number,
): Promise<Transaction[]> {
  return (await context.coreBanking.statement(accountId, { from: period.from, to: period.to, limit })).map(
    bookedTransaction,
  );
}
