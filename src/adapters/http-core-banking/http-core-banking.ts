// The core banking port over HTTP: the bank's own system, answering the contract of
// docs/core-banking-api.yaml. Reads map to GETs (opaque ids in the path) and POSTs (account numbers and
// card numbers stay out of URLs and their logs). A booking order is POSTed under its key, as the
// Idempotency-Key header and in the body: the system answers the first outcome for a key however
// often it is asked. Retries go under the same key (client.ts); when they run out the outcome is
// unknown and `book` throws, so the booking protocol (services/payments/booking.ts) keeps the payments
// marked and asks again later, under the same key, never booking twice.
import type { BankAccount, CardAccountRecord } from '../../domain/accounts.ts';
import type { AccountLookup, BookingOrder, BookingOutcome, CoreBanking } from '../../ports/core-banking.ts';
import type { CustomerDirectory } from '../../ports/psu-directory.ts';
import {
  AccountAnswer,
  BalancesAnswer,
  BookingAnswer,
  CardAccountAnswer,
  checked,
  FundsAnswer,
  StatementAnswer,
  toBankAccount,
  toCardAccount,
  toOutcome,
  toStatementLine,
} from './answers.ts';
import {
  type ClientOptions,
  type CoreBankingClient,
  CoreBankingContractError,
  coreBankingClient,
  type Read,
  type SystemAnswer,
} from './client.ts';
import { httpCustomers } from './customers.ts';

export { CoreBankingContractError, CoreBankingUnavailable, DEFAULT_RETRY } from './client.ts';

export type HttpCoreBankingOptions = ClientOptions;

export interface HttpCoreBanking extends CoreBanking {
  /** What the system says of the bank's customers: who a PSU is, and the PSU's accounts and cards. */
  readonly customers: CustomerDirectory;
  /**
   * Whether the system answers (health, readiness): the balances of an account id no bank has, a read
   * of the contract that changes nothing. Rejects with CoreBankingUnavailable when it does not answer.
   */
  probe(): Promise<void>;
  /** Closes the kept-alive connections. */
  close(): void;
}

/** The account id the probe asks the balances of: none, and known as the gateway's probe in the bank's log. */
const PROBE_ACCOUNT = 'psd2-gateway-probe';

const segment = encodeURIComponent;

function reader(client: CoreBankingClient): Read {
  return async (what, schema, call) => {
    const answer = await client.call({ ...call, what });
    if (answer.status === 200) return checked(schema, answer.body, what);
    if (answer.status === 404 && problemCode(answer) === 'RESOURCE_UNKNOWN') return undefined;
    throw unexpected(what, answer);
  };
}

export function httpCoreBanking(options: HttpCoreBankingOptions): HttpCoreBanking {
  const client = coreBankingClient(options);
  const read = reader(client);

  return {
    customers: httpCustomers(read),

    async findAccount(lookup: AccountLookup): Promise<BankAccount | undefined> {
      const found =
        lookup.kind === 'id'
          ? await read('an account by id', AccountAnswer, {
              method: 'GET',
              path: `/accounts/${segment(lookup.accountId)}`,
            })
          : await read(`an account by ${lookup.kind.toUpperCase()}`, AccountAnswer, {
              method: 'POST',
              path: '/account-lookups',
              body:
                lookup.kind === 'iban'
                  ? { iban: lookup.iban }
                  : { country: lookup.country, bban: lookup.bban },
            });
      return found === undefined ? undefined : toBankAccount(found);
    },

    async findCardAccount(cardAccountId): Promise<CardAccountRecord | undefined> {
      const found = await read('a card account', CardAccountAnswer, {
        method: 'GET',
        path: `/card-accounts/${segment(cardAccountId)}`,
      });
      return found === undefined ? undefined : toCardAccount(found);
    },

    async balances(accountIds) {
      if (accountIds.length === 0) return new Map();
      const query = new URLSearchParams(accountIds.map((id) => ['accountId', id]));
      const found = await read('balances', BalancesAnswer, { method: 'GET', path: `/balances?${query}` });
      const asked = new Set(accountIds);
      return new Map(
        (found?.balances ?? [])
          .filter((balance) => asked.has(balance.accountId))
          .map((balance) => [balance.accountId, balance.bookedMinor]),
      );
    },

    async statement(accountId, period) {
      const query = new URLSearchParams({ from: period.from, to: period.to, limit: String(period.limit) });
      const found = await read('a statement', StatementAnswer, {
        method: 'GET',
        path: `/accounts/${segment(accountId)}/statement?${query}`,
      });
      return (found?.lines ?? []).slice(0, period.limit).map(toStatementLine);
    },

    async availableFunds(source) {
      const body = 'iban' in source ? { iban: source.iban } : { cardNumber: source.cardNumber };
      const found = await read('available funds', FundsAnswer, {
        method: 'POST',
        path: '/available-funds',
        body,
      });
      return found === undefined
        ? undefined
        : { currency: found.currency, availableMinor: found.availableMinor };
    },

    async book(order: BookingOrder): Promise<BookingOutcome> {
      const what = `booking order ${order.key}`;
      const answer = await client.call({
        method: 'POST',
        path: '/booking-orders',
        headers: { 'idempotency-key': order.key },
        body: orderBody(order),
        what,
      });
      if (answer.status !== 200 && answer.status !== 201) throw unexpected(what, answer);
      const outcome = checked(BookingAnswer, answer.body, what);
      // An answer to another order (a proxy's mix-up) must never settle this one.
      if (outcome.key !== order.key)
        throw new CoreBankingContractError(`core banking system, ${what}: answered for order ${outcome.key}`);
      return toOutcome(outcome);
    },

    async probe() {
      await read('a probe', BalancesAnswer, { method: 'GET', path: `/balances?accountId=${PROBE_ACCOUNT}` });
    },

    close: client.close,
  };
}

/** The order as the contract spells it, field by field: what the port adds later is not sent unannounced. */
function orderBody(order: BookingOrder) {
  return {
    key: order.key,
    bookingDate: order.bookingDate,
    lines: order.lines.map((line) => ({
      paymentId: line.paymentId,
      product: line.product,
      debtorAccountId: line.debtorAccountId,
      amount: { currency: line.amount.currency, minor: line.amount.minor },
      creditorAccount: line.creditorAccount,
      creditorName: line.creditorName,
      withinBank: line.withinBank,
      remittance: line.remittance,
      reference: line.reference,
      initiatedOn: line.initiatedOn,
    })),
  };
}

function problemCode(answer: SystemAnswer): unknown {
  return typeof answer.body === 'object' && answer.body !== null
    ? (answer.body as { code?: unknown }).code
    : undefined;
}

/** An answer outside the contract: 400 or 422 (a fault of ours), a 404 from no endpoint of it, 401/403. */
function unexpected(what: string, answer: SystemAnswer): CoreBankingContractError {
  const code = problemCode(answer);
  const hint =
    answer.status === 404
      ? ' (is CORE_BANKING_URL the base of the contract?)'
      : typeof code === 'string'
        ? ` ${code}`
        : '';
  return new CoreBankingContractError(`core banking system, ${what}: answered ${answer.status}${hint}`);
}
