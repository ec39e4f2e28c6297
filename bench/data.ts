// The bench's data and its two mixes of traffic, in the bench's own database (never the sandbox's
// seed changed): the hot mix is the sandbox's one app, its token and Tolvan's account; the realistic
// mix is BENCH_APPS apps (50) with their tokens and BENCH_ACCOUNTS private customers (1,000), each with
// one account, four months of history and a consent of one of the apps, payments spread over them.
// Inserted through the store's repositories (insertCustomers, insertApp, insertHistory).
import { randomUUID } from 'node:crypto';
import { TppClient } from '@psd2-gateway/client';
import { sql } from 'drizzle-orm';
import { composeIBAN } from 'ibantools';
import { parseSwedishAccount } from '../src/domain/account-identifiers.ts';
import { addDays } from '../src/domain/dates.ts';
import { newSandboxClientId } from '../src/domain/secrets.ts';
import { sandboxHistory } from '../src/sandbox/history.ts';
import { TEST_ACCOUNTS } from '../src/sandbox/test-data.ts';
import { insertApp } from '../src/store/apps-repository.ts';
import { insertCustomers, type SeedAccount } from '../src/store/customers-repository.ts';
import type { Store } from '../src/store/database.ts';
import { insertHistory } from '../src/store/ledger/history.ts';
import { bankDate } from '../test/helpers/gateway.ts';
import { ACCOUNTS, domestic } from '../test/helpers/payments.ts';
import type { Target } from './common.ts';
import type { ExecuteItem, FlowItem } from './flow-process.ts';
import type { LoadRequest } from './load-process.ts';
import { emptyRawData, type RawBooking, type RawData } from './raw.ts';

export const ACCOUNT_COUNT = Number(process.env.BENCH_ACCOUNTS ?? 1000);
export const APP_COUNT = Number(process.env.BENCH_APPS ?? 50);
const BOOKINGS_PER_ACCOUNT = 30;
const HISTORY_DAYS = 120;
/** Executed payments in each realistic account's past (BENCH_PAST_PAYMENTS): a bank's payments table is not young. */
const PAST_PAYMENTS_PER_ACCOUNT = Number(process.env.BENCH_PAST_PAYMENTS ?? 50);
export const PRODUCT = 'handelsbanken-domestic-credit-transfer';
export const INITIATION_PATH = `/psd2/se/v2/payments/private/single/${PRODUCT}`;
const BASKET_PATH = '/psd2/se/v2/payments/private/signing-basket';
const REDIRECT = 'http://127.0.0.1/cb';

export interface BenchAccount {
  readonly accountId: string;
  readonly psuId: string;
  readonly bban: string;
  readonly iban: string;
}

export interface BenchApp {
  readonly clientId: string;
  readonly redirectUri: string;
  readonly pis: string;
}

export interface Reader {
  readonly app: BenchApp;
  readonly psuToken: string;
  readonly accountId: string;
}

export interface Mix {
  readonly name: 'hot' | 'realistic';
  readonly apps: readonly BenchApp[];
  readonly debtors: readonly BenchAccount[];
  /** The creditor of debtor i: another of the mix's accounts. */
  creditorOf(index: number): BenchAccount;
  readonly readers: readonly Reader[];
}

/** `count` valid Handelsbanken account numbers (clearing 6000, real check digits), none of the sandbox's. */
function accountNumbers(count: number): string[] {
  // Handelsbanken's IBANs leave the clearing number out: an account number of any seeded account is taken.
  const taken = new Set(TEST_ACCOUNTS.map((account) => account.bban?.slice(4)));
  const numbers: string[] = [];
  for (let candidate = 700_000_000; numbers.length < count; candidate += 1) {
    const parsed = parseSwedishAccount(`6000${candidate}`);
    if (parsed.ok && parsed.value.ownBank && !taken.has(parsed.value.accountNumber))
      numbers.push(String(candidate));
  }
  return numbers;
}

function benchAccounts(count: number): (SeedAccount & BenchAccount)[] {
  return accountNumbers(count).map((number, index) => ({
    accountId: randomUUID(),
    psuId: `bench-${String(index).padStart(5, '0')}`,
    country: 'SE',
    currency: 'SEK',
    iban: composeIBAN({ countryCode: 'SE', bban: `600${number.padStart(17, '0')}` })!,
    bban: `6000${number}`,
    clearingNumber: '6000',
    bic: 'HANDSESS',
    accountType: 'CACC',
    name: 'Allkonto',
    ownerName: `Bench Customer ${index}`,
    position: 1,
    balanceMinor: 12_500_000_00,
  }));
}

/** Four months of everyday bookings on an account, against the bank's clearing account. */
function benchHistory(account: BenchAccount, index: number) {
  const end = Date.parse(`${bankDate()}T00:00:00Z`);
  return Array.from({ length: BOOKINGS_PER_ACCOUNT }, (_, n) => {
    const bookedOn = new Date(
      end - Math.floor(((n + 0.5) * HISTORY_DAYS) / BOOKINGS_PER_ACCOUNT) * 86_400_000,
    )
      .toISOString()
      .slice(0, 10);
    const minor = n % 6 === 0 ? 2_500_000 + index : -(10_000 + ((index * 7919 + n * 104_729) % 250_000));
    return {
      bookingId: `bench:${account.accountId}:${n}`,
      bookedOn,
      transactionDate: bookedOn,
      debtorName: minor < 0 ? `Bench Customer ${index}` : 'Arbetsgivaren AB',
      creditorName: minor < 0 ? 'ICA Maxi' : `Bench Customer ${index}`,
      remittance: minor < 0 ? 'Kortköp' : 'Lön',
      entries: [
        { ledgerAccount: account.accountId, currency: 'SEK', amountMinor: minor },
        { ledgerAccount: 'clearing:SEK', currency: 'SEK', amountMinor: -minor },
      ],
    };
  });
}

/** Runs `work` on every item with `concurrency` loops. */
export async function eachConcurrently<T, R>(
  items: readonly T[],
  concurrency: number,
  work: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < items.length) {
        const index = next++;
        results[index] = await work(items[index]!, index);
      }
    }),
  );
  return results;
}

/** A consent of `app` for `psuId` (PSU-ID named in advance), approved in the sandbox: the PSU's token. */
async function consentToken(target: Target, app: BenchApp, psuId: string | undefined): Promise<string> {
  const client = new TppClient(target.url, app.clientId, app.redirectUri);
  const created = await client.createConsent(
    await client.clientCredentialsToken('AIS'),
    psuId === undefined ? {} : { headers: { 'PSU-ID': psuId } },
  );
  if (created.status !== 201 && created.status !== 200)
    throw new Error(`consent ${created.status} ${JSON.stringify(created.body)}`);
  return (await client.authorizeScope(`AIS:${created.body.consentId}`)).access_token;
}

/** Inserts the realistic mix's customers, history and apps; answers both mixes and raw(work)'s data. */
export async function prepareMixes(
  target: Target & { store: Store },
): Promise<{ hot: Mix; realistic: Mix; raw: RawData }> {
  const db = target.store.db;
  const accounts = benchAccounts(ACCOUNT_COUNT);
  await insertCustomers(db, {
    psus: accounts.map((account, index) => ({
      psuId: account.psuId,
      name: `Bench Customer ${index}`,
      customerType: 'private' as const,
      corporateId: null,
    })),
    accounts,
    cards: [],
  });
  const histories = accounts.map((account, index) => benchHistory(account, index));
  await insertHistory(db, histories.flat(), new Date());
  const appIds = Array.from({ length: APP_COUNT }, () => newSandboxClientId());
  for (const [index, clientId] of appIds.entries())
    await insertApp(db, {
      clientId,
      name: `Bench app ${index}`,
      description: 'An app of the bench',
      redirectUri: REDIRECT,
      seeded: false,
    });
  const pisOf = async (clientId: string, redirectUri: string): Promise<BenchApp> => ({
    clientId,
    redirectUri,
    pis: await new TppClient(target.url, clientId, redirectUri).clientCredentialsToken(),
  });
  const apps = await eachConcurrently(appIds, 8, (clientId) => pisOf(clientId, REDIRECT));
  const sandboxApp = await pisOf(target.clientId, target.redirectUri);
  const readers = await eachConcurrently(accounts, 16, async (account, index) => {
    const app = apps[index % apps.length]!;
    return { app, psuToken: await consentToken(target, app, account.psuId), accountId: account.accountId };
  });
  const tolvan: BenchAccount = {
    accountId: ACCOUNTS.tolvan.accountId,
    psuId: ACCOUNTS.tolvan.psuId,
    bban: ACCOUNTS.tolvan.bban!,
    iban: ACCOUNTS.tolvan.iban!,
  };
  const agda: BenchAccount = {
    accountId: ACCOUNTS.agda.accountId,
    psuId: ACCOUNTS.agda.psuId,
    bban: ACCOUNTS.agda.bban!,
    iban: ACCOUNTS.agda.iban!,
  };
  // Transactions are read from Tolvan's savings account, which no payment of the bench books on: the
  // gateway's answer then holds exactly the bookings raw(work) knows (the checking account gains one per flow).
  const hotReader: Reader = {
    app: sandboxApp,
    psuToken: await consentToken(target, sandboxApp, undefined),
    accountId: ACCOUNTS.tolvanSavings.accountId,
  };

  // raw(work) knows the same tokens, customers, accounts and bookings.
  const raw = emptyRawData();
  for (const app of [sandboxApp, ...apps]) raw.tokens.set(app.pis, '');
  raw.tokens.set(hotReader.psuToken, tolvan.psuId);
  const addAccount = (account: BenchAccount, name: string, ownerName: string, bookings: RawBooking[]) => {
    const view = {
      resourceId: account.accountId,
      iban: account.iban,
      bban: account.bban,
      currency: 'SEK',
      name,
      ownerName,
      balanceMinor: 12_500_000_00,
    };
    raw.accountsOf.set(account.psuId, [...(raw.accountsOf.get(account.psuId) ?? []), view]);
    raw.byIban.set(account.iban, view);
    raw.history.set(account.accountId, bookings);
  };
  for (const [index, account] of accounts.entries()) {
    raw.tokens.set(readers[index]!.psuToken, account.psuId);
    addAccount(
      account,
      'Allkonto',
      `Bench Customer ${index}`,
      histories[index]!.map((booking) => ({
        transactionId: booking.bookingId,
        bookingDate: booking.bookedOn,
        amountMinor: booking.entries[0]!.amountMinor,
        counterpart: booking.entries[0]!.amountMinor < 0 ? booking.creditorName : booking.debtorName,
        remittance: booking.remittance,
      })),
    );
  }
  const sandboxBookings = sandboxHistory(bankDate());
  for (const seeded of TEST_ACCOUNTS.filter((account) => account.psuId === tolvan.psuId)) {
    const bookings: RawBooking[] = [];
    for (const booking of sandboxBookings) {
      const entry = booking.entries.find((candidate) => candidate.ledgerAccount === seeded.accountId);
      if (entry === undefined) continue;
      bookings.push({
        transactionId: booking.bookingId,
        bookingDate: booking.bookedOn,
        amountMinor: entry.amountMinor,
        counterpart: entry.amountMinor < 0 ? booking.creditorName : booking.debtorName,
        remittance: booking.remittance,
      });
    }
    addAccount(
      {
        accountId: seeded.accountId,
        psuId: seeded.psuId,
        bban: seeded.bban ?? '',
        iban: seeded.iban ?? '',
      },
      seeded.name,
      seeded.ownerName,
      bookings,
    );
  }

  const hot: Mix = {
    name: 'hot',
    apps: [sandboxApp],
    debtors: [tolvan],
    creditorOf: () => agda,
    readers: [hotReader],
  };
  const realistic: Mix = {
    name: 'realistic',
    apps,
    debtors: accounts,
    // Half the list away: the payments under way at one time (neighbours in the list) do not share
    // accounts, as a bank's concurrent payments rarely do (the hot mix is the case where all do).
    creditorOf: (index) => accounts[(index + (accounts.length >> 1)) % accounts.length]!,
    readers,
  };
  await insertPastPayments(db, realistic);
  // A bank's database has statistics: autovacuum analyzes a table within a minute of a bulk change.
  // Without them the planner takes the bench's fresh tables for empty and joins whole tables.
  await db.execute(
    sql.raw('ANALYZE apps, psus, accounts, consents, access_tokens, bookings, ledger_entries, payments'),
  );
  return { hot, realistic, raw };
}

/**
 * The realistic mix's past: PAST_PAYMENTS_PER_ACCOUNT executed payments of each debtor, one a day, by
 * the mix's apps, each as the gateway stores an initiation. A bank's payments table holds years of
 * them; the bench's would otherwise start empty, and PostgreSQL's cached generic plans (the gateway's
 * named statements, PL/pgSQL's and the foreign key checks') made while a table is empty scan it whole
 * until autovacuum's next analyze replans them: two full scans of the growing table per flow, a
 * figure of a young database that no bank has (issue 18, docs/decisions.md).
 */
async function insertPastPayments(db: Store['db'], mix: Mix): Promise<void> {
  if (PAST_PAYMENTS_PER_ACCOUNT <= 0) return;
  const payers = mix.debtors.map((debtor, index) => ({
    accountId: debtor.accountId,
    psuId: debtor.psuId,
    bban: debtor.bban,
    creditorBban: mix.creditorOf(index).bban,
    clientId: mix.apps[index % mix.apps.length]!.clientId,
  }));
  // Stored in ACTC and then executed, as the gateway's own writers do: the database refuses a payment
  // that starts in another status (store/transition-rule.ts).
  await db.transaction(async (trx) => {
    await trx.execute(sql`
    INSERT INTO payments (payment_id, client_id, product, country, customer_type, psu_id, debtor_account_id,
                          amount_minor, currency, creditor_account, status, instruction, created_at,
                          debtor_currency)
    SELECT gen_random_uuid()::text, p."clientId", ${PRODUCT}, 'SE', 'private', p."psuId", p."accountId",
           100 * s.n + 5, 'SEK', p."creditorBban", 'ACTC',
           jsonb_build_object(
             'amount', jsonb_build_object('minor', 100 * s.n + 5, 'currency', 'SEK'),
             'debtor', jsonb_build_object('bban', p.bban, 'kind', 'bban', 'country', 'SE'),
             'country', 'SE', 'product', ${PRODUCT}::text,
             'creditor', jsonb_build_object('bic', NULL, 'name', NULL, 'account', p."creditorBban",
                                            'ownBank', true, 'accountType', 'BBAN'),
             'remittance', 'Faktura ' || s.n, 'tppPaymentReference', NULL, 'endToEndIdentification', NULL,
             'requestedExecutionDate', NULL),
           now() - s.n * interval '1 day', 'SEK'
      FROM jsonb_to_recordset(${JSON.stringify(payers)}::jsonb)
             AS p ("accountId" text, "psuId" text, bban text, "creditorBban" text, "clientId" text),
           generate_series(1, ${PAST_PAYMENTS_PER_ACCOUNT}) AS s (n)`);
    // The past's payments are a day old or more; nothing initiated today is touched.
    await trx.execute(sql`
      UPDATE payments SET status = 'ACSC', executed_at = created_at
       WHERE status = 'ACTC' AND created_at < now() - interval '12 hours'`);
  });
}

/** How many requests a list spreads over: every debtor once (at least every app once). */
const spreadOver = (mix: Mix) => Math.max(mix.debtors.length, mix.apps.length);

function paymentBody(mix: Mix, index: number, amount = '125.50') {
  const debtor = mix.debtors[index % mix.debtors.length]!;
  return domestic({
    debtorAccount: { value: debtor.bban, accountType: 'BBAN', currency: 'SEK' },
    creditorAccount: { value: mix.creditorOf(index % mix.debtors.length).bban, accountType: 'BBAN' },
    instructedAmount: { currency: 'SEK', amount },
  });
}

function tppHeaders(app: BenchApp, token: string, extra: Record<string, string> = {}) {
  return {
    'X-Gateway-Client-Id': app.clientId,
    'PSU-IP-Address': '192.0.2.1',
    'TPP-Transaction-ID': randomUUID(),
    Authorization: `Bearer ${token}`,
    ...extra,
  };
}

export function initiationRequests(mix: Mix): LoadRequest[] {
  return Array.from({ length: spreadOver(mix) }, (_, index) => {
    const app = mix.apps[index % mix.apps.length]!;
    return {
      method: 'POST',
      path: INITIATION_PATH,
      headers: tppHeaders(app, app.pis, { 'content-type': 'application/json' }),
      body: JSON.stringify(paymentBody(mix, index)),
    };
  });
}

export function basketRequests(mix: Mix, size: number): LoadRequest[] {
  return Array.from({ length: Math.min(spreadOver(mix), 200) }, (_, index) => {
    const app = mix.apps[index % mix.apps.length]!;
    const payments = Array.from({ length: size }, (_, item) => ({
      paymentProduct: PRODUCT,
      tppPaymentReference: `ref-${item}`,
      ...paymentBody(mix, index, `${10 + item}.00`),
    }));
    return {
      method: 'POST',
      path: BASKET_PATH,
      headers: tppHeaders(app, app.pis, { 'content-type': 'application/json' }),
      body: JSON.stringify({ payments }),
    };
  });
}

/** Payments awaiting authorization (ACTC), initiated at the gateway over the mix; raw(work) knows them too. */
export async function awaitingPayments(
  target: Target,
  mix: Mix,
  raw: RawData,
): Promise<{ app: BenchApp; paymentId: string }[]> {
  const count = spreadOver(mix);
  return eachConcurrently(Array.from({ length: count }), 16, async (_, index) => {
    const app = mix.apps[index % mix.apps.length]!;
    const client = new TppClient(target.url, app.clientId, app.redirectUri);
    const answer = await client.initiate(app.pis, { path: INITIATION_PATH, body: paymentBody(mix, index) });
    if (answer.status !== 200) throw new Error(`initiate ${answer.status} ${JSON.stringify(answer.body)}`);
    raw.payments.set(answer.body.paymentId, 'ACTC');
    return { app, paymentId: answer.body.paymentId };
  });
}

export function statusRequests(payments: readonly { app: BenchApp; paymentId: string }[]): LoadRequest[] {
  return payments.map(({ app, paymentId }) => ({
    method: 'GET',
    path: `/psd2/v1/payments/${PRODUCT}/${paymentId}/status`,
    headers: tppHeaders(app, app.pis, { Country: 'SE' }),
  }));
}

export function accountListRequests(mix: Mix): LoadRequest[] {
  return mix.readers.map((reader) => ({
    method: 'GET',
    path: '/psd2/v1/accounts',
    headers: tppHeaders(reader.app, reader.psuToken),
  }));
}

export function transactionRequests(mix: Mix): LoadRequest[] {
  const dateFrom = addDays(bankDate(), -90);
  return mix.readers.map((reader) => ({
    method: 'GET',
    path: `/psd2/v1/accounts/${reader.accountId}/transactions?dateFrom=${dateFrom}`,
    headers: tppHeaders(reader.app, reader.psuToken),
  }));
}

export function fundsRequests(mix: Mix): LoadRequest[] {
  return Array.from({ length: spreadOver(mix) }, (_, index) => {
    const app = mix.apps[index % mix.apps.length]!;
    return {
      method: 'POST',
      path: '/psd2/v1/funds-confirmations',
      headers: tppHeaders(app, app.pis, { 'content-type': 'application/json' }),
      body: JSON.stringify({
        account: { iban: mix.debtors[index % mix.debtors.length]!.iban },
        payee: 'Bench shop',
        instructedAmount: { currency: 'SEK', amount: '125.50' },
      }),
    };
  });
}

export function flowItems(mix: Mix): FlowItem[] {
  return Array.from({ length: spreadOver(mix) }, (_, index) => {
    const app = mix.apps[index % mix.apps.length]!;
    return {
      clientId: app.clientId,
      redirectUri: app.redirectUri,
      token: app.pis,
      path: INITIATION_PATH,
      product: PRODUCT,
      body: paymentBody(mix, index),
    };
  });
}

/** `count` payments initiated and authorized at the gateway (sandbox redirect), ready to execute. */
export async function preparedExecutions(
  target: Target,
  mix: Mix,
  count: number,
): Promise<(ExecuteItem & { debtor: string; creditor: string })[]> {
  return eachConcurrently(Array.from({ length: count }), 32, async (_, index) => {
    const app = mix.apps[index % mix.apps.length]!;
    const client = new TppClient(target.url, app.clientId, app.redirectUri);
    const answer = await client.initiate(app.pis, { path: INITIATION_PATH, body: paymentBody(mix, index) });
    if (answer.status !== 200) throw new Error(`initiate ${answer.status} ${JSON.stringify(answer.body)}`);
    const paymentId = answer.body.paymentId;
    const psuToken = (await client.authorizeScope(`PIS:${paymentId}`)).access_token;
    return {
      clientId: app.clientId,
      paymentId,
      psuToken,
      product: PRODUCT,
      debtor: mix.debtors[index % mix.debtors.length]!.accountId,
      creditor: mix.creditorOf(index % mix.debtors.length).accountId,
    };
  });
}
