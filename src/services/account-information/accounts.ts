// Account information (spec row 16, API-NOTES "Accounts, cards, consents, funds"): the consenting PSU's
// accounts and card accounts with balances and transactions, read from the ledger. The general API
// shows the PSU's accounts outside Great Britain; the GB API (accounts-gb) its British ones.
import { addMonths, isIsoDate } from '../../domain/dates.ts';
import { ApiError, apiError, notYours } from '../../domain/errors.ts';
import { formatAmount } from '../../domain/money.ts';
import type { App } from '../../store/apps-repository.ts';
import {
  type AccountWithBalance,
  type CardAccountRecord,
  cardAccountExists,
  findAccountById,
  listAccountsOfPsu,
  listCardAccountsOfPsu,
  listCardsOfCardAccounts,
} from '../../store/customers-repository.ts';
import { entriesSums, type StatementLine, statementOf } from '../../store/ledger-repository.ts';
import { listScheduledDebits } from '../../store/payments-repository.ts';
import type { TokenGrant } from '../access/tokens.ts';
import { type ServiceContext, today } from '../shared/context.ts';
import { type AisRead, consentedPsu } from './consents.ts';

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

export interface AccountDetails extends AccountBase {
  readonly balances?: readonly Balance[];
  readonly _links: { readonly transactions: { readonly href: string } };
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

export interface CardAccountView {
  readonly accountId: string;
  readonly cards: readonly { maskedPan: string; name: string }[];
  readonly currency: string;
  readonly product: string;
  readonly creditLimit: { readonly currency: string; readonly amount: string };
  readonly balances: readonly {
    balanceType: 'booked' | 'available';
    balanceAmount: { currency: string; amount: string };
  }[];
}

/** An account's identifying fields, without the empty ones. */
export function accountBase(account: AccountWithBalance): AccountBase {
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

/** A PSU's accounts with their booked balances now (opening balance plus the ledger's entries). */
export async function accountsWithBalances(
  context: ServiceContext,
  psuId: string,
): Promise<AccountWithBalance[]> {
  const accounts = await listAccountsOfPsu(context.db, psuId);
  const sums = await entriesSums(
    context.db,
    accounts.map((account) => account.accountId),
  );
  return accounts.map((account) => ({
    ...account,
    balanceMinor: account.balanceMinor + (sums.get(account.accountId) ?? 0),
  }));
}

const inApi = (read: AisRead) => (account: { country: string }) =>
  read.api === 'gb' ? account.country === 'GB' : account.country !== 'GB';

/** What an AIS call is asked: the app, the PSU's token, and the read (API, resource, PSU present). */
export interface AisCall {
  readonly app: App;
  readonly grant: TokenGrant;
  readonly read: AisRead;
  readonly baseUrl: string;
}

function details(call: AisCall, account: AccountWithBalance, withBalance: boolean): AccountDetails {
  const prefix = call.read.api === 'gb' ? '/psd2/gb/v1' : '/psd2/v1';
  return {
    ...accountBase(account),
    ...(withBalance ? { balances: accountBalances(account.currency, account.balanceMinor) } : {}),
    _links: { transactions: { href: `${call.baseUrl}${prefix}/accounts/${account.accountId}/transactions` } },
  };
}

export async function listConsentedAccounts(
  context: ServiceContext,
  call: AisCall,
  withBalance: boolean,
): Promise<{ accounts: AccountDetails[] }> {
  const psuId = await consentedPsu(context, call.app, call.grant, call.read);
  const accounts = (await accountsWithBalances(context, psuId)).filter(inApi(call.read));
  return { accounts: accounts.map((account) => details(call, account, withBalance)) };
}

/** One of the consenting PSU's accounts in this API: 404 when there is no such account, 403 when it is another's. */
async function consentedAccount(
  context: ServiceContext,
  call: AisCall,
  accountId: string,
): Promise<AccountWithBalance> {
  const psuId = await consentedPsu(context, call.app, call.grant, call.read);
  const account = (await accountsWithBalances(context, psuId)).find(
    (candidate) => candidate.accountId === accountId && inApi(call.read)(candidate),
  );
  if (account !== undefined) return account;
  if ((await findAccountById(context.db, accountId)) === undefined) {
    throw new ApiError({ code: 'RESOURCE_UNKNOWN', text: 'There is no such account' }, 404);
  }
  throw notYours('The account is not covered by this consent');
}

export async function readConsentedAccount(
  context: ServiceContext,
  call: AisCall,
  accountId: string,
  withBalance: boolean,
): Promise<AccountDetails> {
  return details(call, await consentedAccount(context, call, accountId), withBalance);
}

export async function readAccountBalances(
  context: ServiceContext,
  call: AisCall,
  accountId: string,
): Promise<{ accountId: string; balances: Balance[] }> {
  const account = await consentedAccount(context, call, accountId);
  return { accountId, balances: accountBalances(account.currency, account.balanceMinor) };
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

/** A booked ledger entry as a transaction of the account it was booked on. */
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

/** Booked transactions of a ledger account in the period, newest first (at most MAX_TRANSACTIONS). */
async function bookedTransactions(
  context: ServiceContext,
  ledgerAccount: string,
  period: { from: string; to: string },
  limit: number,
): Promise<Transaction[]> {
  return (await statementOf(context.db, ledgerAccount, { ...period, limit })).map(bookedTransaction);
}

export async function readAccountTransactions(
  context: ServiceContext,
  call: AisCall,
  accountId: string,
  query: { dateFrom?: string; dateTo?: string },
): Promise<{ accountId: string; transactions: Transaction[] }> {
  const period = transactionPeriod(context, query);
  const account = await consentedAccount(context, call, accountId);
  // Future-dated payments waiting for their date: pending, first (they are the latest).
  const pending: Transaction[] = (await listScheduledDebits(context.db, accountId, period)).map((debit) => ({
    amount: {
      content: formatAmount({ currency: debit.currency, minor: debit.amountMinor }),
      currency: debit.currency,
    },
    transactionDate: debit.createdAt.toISOString().slice(0, 10),
    valueDate: debit.requestedExecutionDate,
    creditDebit: 'DEBITED',
    ...(debit.creditorName === null ? {} : { creditorName: debit.creditorName }),
    debtorName: account.ownerName,
    ...(debit.remittance === null ? {} : { remittanceInformation: debit.remittance }),
    status: 'PENDING',
  }));
  const shown = pending.slice(0, MAX_TRANSACTIONS);
  const booked = await bookedTransactions(context, accountId, period, MAX_TRANSACTIONS - shown.length);
  return { accountId, transactions: [...shown, ...booked] };
}

// Card accounts: the general API only.

interface CardAccountWithBalance extends CardAccountRecord {
  readonly bookedMinor: number;
}

async function cardAccountsOf(context: ServiceContext, psuId: string): Promise<CardAccountWithBalance[]> {
  const cardAccounts = await listCardAccountsOfPsu(context.db, psuId);
  const sums = await entriesSums(
    context.db,
    cardAccounts.map((cardAccount) => cardAccount.cardAccountId),
  );
  return cardAccounts.map((cardAccount) => ({
    ...cardAccount,
    bookedMinor: cardAccount.balanceMinor + (sums.get(cardAccount.cardAccountId) ?? 0),
  }));
}

async function cardAccountViews(
  context: ServiceContext,
  cardAccounts: readonly CardAccountWithBalance[],
): Promise<CardAccountView[]> {
  const cards = await listCardsOfCardAccounts(
    context.db,
    cardAccounts.map((cardAccount) => cardAccount.cardAccountId),
  );
  return cardAccounts.map((cardAccount) => {
    const amount = (minor: number) => ({
      currency: cardAccount.currency,
      amount: formatAmount({ currency: cardAccount.currency, minor }),
    });
    return {
      accountId: cardAccount.cardAccountId,
      cards: cards
        .filter((card) => card.cardAccountId === cardAccount.cardAccountId)
        .map(({ maskedPan, name }) => ({ maskedPan, name })),
      currency: cardAccount.currency,
      product: cardAccount.product,
      creditLimit: amount(cardAccount.creditLimitMinor),
      balances: [
        { balanceType: 'booked', balanceAmount: amount(cardAccount.bookedMinor) },
        // What can still be spent: the credit limit less what is owed.
        {
          balanceType: 'available',
          balanceAmount: amount(cardAccount.creditLimitMinor + cardAccount.bookedMinor),
        },
      ],
    };
  });
}

export async function listConsentedCardAccounts(
  context: ServiceContext,
  call: AisCall,
): Promise<{ cardAccounts: CardAccountView[] }> {
  const psuId = await consentedPsu(context, call.app, call.grant, call.read);
  return { cardAccounts: await cardAccountViews(context, await cardAccountsOf(context, psuId)) };
}

/** One of the consenting PSU's card accounts: 404 when there is no such card account, 403 when it is another's. */
export async function readConsentedCardAccount(
  context: ServiceContext,
  call: AisCall,
  cardAccountId: string,
): Promise<CardAccountView> {
  const psuId = await consentedPsu(context, call.app, call.grant, call.read);
  const found = (await cardAccountsOf(context, psuId)).find(
    (candidate) => candidate.cardAccountId === cardAccountId,
  );
  if (found === undefined) {
    if (await cardAccountExists(context.db, cardAccountId)) {
      throw notYours('The card account is not covered by this consent');
    }
    throw new ApiError({ code: 'RESOURCE_UNKNOWN', text: 'There is no such card account' }, 404);
  }
  return (await cardAccountViews(context, [found]))[0]!;
}

export async function readCardAccountBalances(
  context: ServiceContext,
  call: AisCall,
  cardAccountId: string,
): Promise<{ accountId: string; balances: CardAccountView['balances'] }> {
  const view = await readConsentedCardAccount(context, call, cardAccountId);
  return { accountId: cardAccountId, balances: view.balances };
}

export async function readCardAccountTransactions(
  context: ServiceContext,
  call: AisCall,
  cardAccountId: string,
  query: { dateFrom?: string; dateTo?: string },
): Promise<{ accountId: string; transactions: Transaction[] }> {
  const period = transactionPeriod(context, query);
  await readConsentedCardAccount(context, call, cardAccountId);
  return {
    accountId: cardAccountId,
    transactions: await bookedTransactions(context, cardAccountId, period, MAX_TRANSACTIONS),
  };
}
