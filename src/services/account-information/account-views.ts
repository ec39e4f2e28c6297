// What the account-information answers are made of (API-NOTES "Accounts, cards, consents, funds"):
// accounts with balances, transactions from the bank's statements, and the period a read may ask for.
import type { AccountRecord, AccountWithBalance } from '../../domain/accounts.ts';
import { addMonths, isIsoDate } from '../../domain/dates.ts';
import { apiError } from '../../domain/errors.ts';
import { formatAmount } from '../../domain/money.ts';
import type { StatementLine } from '../../ports/core-banking.ts';
import { type ServiceContext, today } from '../shared/context.ts';

/** At most this many transactions per answer, and no further back than 15 months (as the real service). */
export const MAX_TRANSACTIONS = 600;
export const MAX_HISTORY_MONTHS = 15;

export interface AmountText {
  readonly content: string;
  readonly currency: string;
}

export interface Balance {
  readonly amount: AmountText;
  readonly balanceType: 'booked' | 'available';
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

/** A PSU's accounts (the PSU directory's) with their booked balances now (the core banking system's). */
export async function accountsWithBalances(
  context: ServiceContext,
  psuId: string,
): Promise<AccountWithBalance[]> {
  const accounts = await context.psuDirectory.accountsOf(psuId);
  const balances = await context.coreBanking.balances(accounts.map((account) => account.accountId));
  return accounts.map((account) => ({ ...account, balanceMinor: balances.get(account.accountId) ?? 0 }));
}

/** The period of a transactions read: dateFrom required, dateTo today by default, at most 15 months back. */
export function transactionPeriod(
  context: ServiceContext,
  query: { dateFrom?: string; dateTo?: string },
): { from: string; to: string } {
  const day = today(context);
  if (query.dateFrom === undefined) throw apiError('FORMAT_ERROR', 'dateFrom is required', 'dateFrom');
  for (const name of ['dateFrom', 'dateTo'] as const) {
    const value = query[name];
    if (value !== undefined && !isIsoDate(value)) {
      throw apiError('FORMAT_ERROR', `${name} must be an ISO date (YYYY-MM-DD)`, name);
    }
  }
  const from = query.dateFrom;
  const to = query.dateTo ?? day;
  if (from > to) throw apiError('FORMAT_ERROR', 'dateFrom must not be after dateTo', 'dateFrom');
  const earliest = addMonths(day, -MAX_HISTORY_MONTHS);
  if (from < earliest) {
    throw apiError(
      'FORMAT_ERROR',
      `dateFrom must not be before ${earliest} (${MAX_HISTORY_MONTHS} months back)`,
      'dateFrom',
    );
  }
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
  return (await context.coreBanking.statement(accountId, { ...period, limit })).map(bookedTransaction);
}
