// Account and card-account information with the PSU's token (README "Account information"): the list,
// one account, its balances, its transactions. Accounts live under /psd2/v1 by default; `under()` reads
// the same through another accounts API (/psd2/v2 records, /psd2/gb/v1, /psd2/lu/v1).
import type {
  Account,
  AccountList,
  BalancesAnswer,
  CardAccount,
  CardAccountList,
  CardBalancesAnswer,
  CardTransactionsAnswer,
  TransactionsAnswer,
} from './answers.ts';
import type { HttpAnswer, HttpCaller } from './http.ts';

export interface ReadOptions {
  /** false: a read the TPP makes without the PSU (no PSU-IP-Address), counted against frequencyPerDay. */
  readonly psuPresent?: boolean;
}

export interface BalanceOptions extends ReadOptions {
  /** The list carries balances unless false; one account only when true. */
  readonly withBalance?: boolean;
}

export interface TransactionsOptions extends ReadOptions {
  /** YYYY-MM-DD; without it, the 90 days up to dateTo. */
  readonly dateFrom?: string;
  /** YYYY-MM-DD; today by default. */
  readonly dateTo?: string;
}

/** The four reads every account-like resource has, under one collection path. */
class AccountReads<List, One, Balances, Transactions> {
  constructor(
    protected readonly caller: HttpCaller,
    readonly path: string,
  ) {}

  protected get<T>(
    suffix: string,
    token: string,
    options: ReadOptions,
    query: Record<string, string | undefined> = {},
  ): Promise<HttpAnswer<T>> {
    const given = Object.entries(query).filter((entry): entry is [string, string] => entry[1] !== undefined);
    const search = given.length === 0 ? '' : `?${new URLSearchParams(given)}`;
    return this.caller.read<T>(`${this.path}${suffix}${search}`, token, options);
  }

  protected one(accountId: string): string {
    return `/${encodeURIComponent(accountId)}`;
  }

  list(token: string, options: ReadOptions = {}): Promise<HttpAnswer<List>> {
    return this.get<List>('', token, options);
  }

  details(accountId: string, token: string, options: ReadOptions = {}): Promise<HttpAnswer<One>> {
    return this.get<One>(this.one(accountId), token, options);
  }

  balances(accountId: string, token: string, options: ReadOptions = {}): Promise<HttpAnswer<Balances>> {
    return this.get<Balances>(`${this.one(accountId)}/balances`, token, options);
  }

  transactions(
    accountId: string,
    token: string,
    options: TransactionsOptions = {},
  ): Promise<HttpAnswer<Transactions>> {
    const { dateFrom, dateTo } = options;
    return this.get<Transactions>(`${this.one(accountId)}/transactions`, token, options, {
      dateFrom,
      dateTo,
    });
  }
}

const flag = (value: boolean | undefined) => (value === undefined ? undefined : String(value));

/** The accounts of every accounts API (their generated answers are the same as version 1's). */
export class AccountsApi extends AccountReads<AccountList, Account, BalancesAnswer, TransactionsAnswer> {
  constructor(caller: HttpCaller, prefix = '/psd2/v1') {
    super(caller, `${prefix}/accounts`);
  }

  /** The same reads under another accounts API's prefix: /psd2/v2, /psd2/gb/v1, /psd2/lu/v1. */
  under(prefix: string): AccountsApi {
    return new AccountsApi(this.caller, prefix);
  }

  override list(token: string, options: BalanceOptions = {}) {
    return this.get<AccountList>('', token, options, {
      withBalance: flag(options.withBalance),
    });
  }

  override details(accountId: string, token: string, options: BalanceOptions = {}) {
    return this.get<Account>(this.one(accountId), token, options, { withBalance: flag(options.withBalance) });
  }
}

/** Card accounts, under general account consents: masked PANs, credit limit, balances. */
export class CardAccountsApi extends AccountReads<
  CardAccountList,
  CardAccount,
  CardBalancesAnswer,
  CardTransactionsAnswer
> {
  constructor(caller: HttpCaller) {
    super(caller, '/psd2/v1/card-accounts');
  }
}
