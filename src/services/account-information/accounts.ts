// Account information (spec row 16, API-NOTES "Accounts, cards, consents, funds"): the consenting PSU's
// accounts with balances and transactions. The general API shows the PSU's accounts outside Great
// Britain; the GB API (accounts-gb) its British ones.
import type { AccountRecord, AccountWithBalance } from '../../domain/accounts.ts';
import type { App } from '../../domain/apps.ts';
import { dateIn } from '../../domain/dates.ts';
import { unknownResource } from '../../domain/errors.ts';
import { formatAmount } from '../../domain/money.ts';
import { listScheduledDebits } from '../../store/payments/scheduled-debits.ts';
import type { TokenGrant } from '../access/tokens.ts';
import type { ServiceContext } from '../shared/context.ts';
import {
  type AccountBase,
  accountsWithBalances,
  type Balance,
  bookedTransactions,
  MAX_TRANSACTIONS,
  type RecordShape,
  type Transaction,
  transactionPeriod,
} from './account-views.ts';
import { type AisRead, consentedPsu } from './consents.ts';

export interface AccountDetails extends AccountBase {
  readonly balances?: readonly Balance[];
  readonly _links: { readonly transactions: { readonly href: string } };
}

/**
 * What an AIS call is asked: the app, the PSU's token, the read (API, resource, PSU present), and how
 * the API writes its records and links (the path prefix of its accounts, e.g. /psd2/v2).
 */
export interface AisCall {
  readonly app: App;
  readonly grant: TokenGrant;
  readonly read: AisRead;
  readonly baseUrl: string;
  readonly prefix: string;
  readonly shape: RecordShape;
}

/** The accounts an API shows: GB its British ones, LU its Luxembourg ones, the general API all others. */
const inApi = (read: AisRead) => (account: { country: string }) =>
  read.api === 'gb'
    ? account.country === 'GB'
    : read.api === 'lu'
      ? account.country === 'LU'
      : account.country !== 'GB';

/** An account's record and links, with its balances when `balanceMinor` is given. */
function details(call: AisCall, account: AccountRecord, balanceMinor?: number): AccountDetails {
  // Members added to the record, not `{ ...record, _links }`: docs/decisions.md, "Spreads followed by members".
  const record: AccountDetails = Object.assign(
    call.shape.account(account),
    balanceMinor === undefined ? {} : { balances: call.shape.balances(account.currency, balanceMinor) },
    {
      _links: {
        transactions: { href: `${call.baseUrl}${call.prefix}/accounts/${account.accountId}/transactions` },
      },
    },
  );
  return record;
}

export async function listConsentedAccounts(
  context: ServiceContext,
  call: AisCall,
  withBalance: boolean,
): Promise<{ accounts: AccountDetails[] }> {
  const psuId = await consentedPsu(context, call.app, call.grant, call.read);
  if (!withBalance) {
    const accounts = (await context.psuDirectory.accountsOf(psuId)).filter(inApi(call.read));
    return { accounts: accounts.map((account) => details(call, account)) };
  }
  const accounts = (await accountsWithBalances(context, psuId)).filter(inApi(call.read));
  return { accounts: accounts.map((account) => details(call, account, account.balanceMinor)) };
}

/** One of the consenting PSU's accounts in this API: any other id, another's account too, is unknown. */
async function consentedAccount(
  context: ServiceContext,
  call: AisCall,
  accountId: string,
): Promise<AccountRecord> {
  const psuId = await consentedPsu(context, call.app, call.grant, call.read);
  const account = (await context.psuDirectory.accountsOf(psuId)).find(
    (candidate) => candidate.accountId === accountId && inApi(call.read)(candidate),
  );
  if (account !== undefined) return account;
  throw unknownResource('There is no such account');
}

/** The account with its booked balance now (the core banking system's). */
async function withBalance(context: ServiceContext, account: AccountRecord): Promise<AccountWithBalance> {
  const balances = await context.coreBanking.balances([account.accountId]);
  return Object.assign({}, account, { balanceMinor: balances.get(account.accountId) ?? 0 });
}

export async function readConsentedAccount(
  context: ServiceContext,
  call: AisCall,
  accountId: string,
  balance: boolean,
): Promise<AccountDetails> {
  const account = await consentedAccount(context, call, accountId);
  return details(call, account, balance ? (await withBalance(context, account)).balanceMinor : undefined);
}

export async function readAccountBalances(
  context: ServiceContext,
  call: AisCall,
  accountId: string,
): Promise<{ accountId: string; balances: Balance[] }> {
  const account = await withBalance(context, await consentedAccount(context, call, accountId));
  return { accountId, balances: call.shape.balances(account.currency, account.balanceMinor) };
}

export async function readAccountTransactions(
  context: ServiceContext,
  call: AisCall,
  accountId: string,
  query: { dateFrom?: string; dateTo?: string },
): Promise<{ accountId: string; transactions: Transaction[] }> {
  const period = transactionPeriod(context, query);
  const account = await consentedAccount(context, call, accountId);
  // The waiting payments and the booked ones are read at once (the booked ones up to the whole limit;
  // the answer keeps as many as the pending ones leave room for).
  const [debits, booked] = await Promise.all([
    listScheduledDebits(context.readDb, accountId, period),
    bookedTransactions(context, accountId, period, MAX_TRANSACTIONS),
  ]);
  // Future-dated payments waiting for their date: pending, first (they are the latest).
  const pending: Transaction[] = debits.map((debit) => ({
    amount: {
      content: formatAmount({ currency: debit.currency, minor: debit.amountMinor }),
      currency: debit.currency,
    },
    transactionDate: dateIn(debit.createdAt, context.config.timeZone),
    valueDate: debit.requestedExecutionDate,
    creditDebit: 'DEBITED',
    ...(debit.creditorName === null ? {} : { creditorName: debit.creditorName }),
    debtorName: account.ownerName,
    ...(debit.remittance === null ? {} : { remittanceInformation: debit.remittance }),
    status: 'PENDING',
  }));
  const shown = pending.slice(0, MAX_TRANSACTIONS);
  return { accountId, transactions: [...shown, ...booked.slice(0, MAX_TRANSACTIONS - shown.length)] };
}
