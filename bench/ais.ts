// Account information, funds confirmation and execution throughput under load: the account list, a
// transactions read (90 days of history), a funds confirmation, and executions per second on
// PostgreSQL with every payment from one hot account or spread over five accounts. The raw node:http
// baseline answers the very bytes the gateway answered, in the same run.
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { TppClient } from '../src/client/tpp-client.ts';
import { addDays } from '../src/domain/dates.ts';
import { ACCOUNTS, CORPORATE_HEADERS, domestic } from '../test/helpers/payments.ts';
import { gateway, listenRaw, load, type Target } from './common.ts';

const EXECUTIONS = Number(process.env.BENCH_EXECUTIONS ?? 1500);
const WORKERS = Number(process.env.BENCH_FLOW_WORKERS ?? 16);
const DOMESTIC = 'handelsbanken-domestic-credit-transfer';
const PRIVATE = `/psd2/se/v2/payments/private/single/${DOMESTIC}`;
const CORPORATE = `/psd2/se/v2/payments/corporate/single/${DOMESTIC}`;

export interface AisRow {
  readonly target: string;
  readonly accounts: number;
  readonly transactions: number;
  readonly funds: number;
  readonly hot?: number;
  readonly spread?: number;
}

/** The five debtors of the spread run: path, extra headers and body of a payment from each. */
const SPREAD = [
  { path: PRIVATE, headers: {}, body: domestic() },
  {
    path: PRIVATE,
    headers: {},
    body: domestic({ debtorAccount: { value: ACCOUNTS.tolvanSavings.bban!, accountType: 'BBAN' } }),
  },
  {
    path: PRIVATE,
    headers: {},
    body: domestic({
      debtorAccount: { value: ACCOUNTS.agda.bban!, accountType: 'BBAN' },
      creditorAccount: { value: ACCOUNTS.tolvan.bban!, accountType: 'BBAN' },
    }),
  },
  {
    path: CORPORATE,
    headers: CORPORATE_HEADERS,
    body: domestic({ debtorAccount: { value: ACCOUNTS.corporateSek.bban!, accountType: 'BBAN' } }),
  },
  {
    path: CORPORATE,
    headers: { 'PSU-Corporate-ID': '5590001235', 'PSU-Corporate-ID-Type': 'BANK' },
    body: domestic({ debtorAccount: { value: ACCOUNTS.otherCorporate.bban!, accountType: 'BBAN' } }),
  },
];

interface Reads {
  readonly accountsPath: string;
  readonly transactionsPath: string;
  readonly psuToken: string;
  readonly pisToken: string;
}

/** A consent authorized in the sandbox, and the paths read with its token. */
async function prepareReads(client: TppClient): Promise<Reads> {
  const created = await client.createConsent(await client.clientCredentialsToken('AIS'));
  const psuToken = (await client.authorizeScope(`AIS:${created.body.consentId}`)).access_token;
  const today = new Date().toISOString().slice(0, 10);
  return {
    accountsPath: '/psd2/v1/accounts',
    transactionsPath: `/psd2/v1/accounts/${ACCOUNTS.tolvan.accountId}/transactions?dateFrom=${addDays(today, -90)}`,
    psuToken,
    pisToken: await client.clientCredentialsToken(),
  };
}

const FUNDS_BODY = JSON.stringify({
  account: { iban: ACCOUNTS.tolvan.iban },
  payee: 'Bench shop',
  instructedAmount: { currency: 'SEK', amount: '125.50' },
});

async function readRates(target: Target, reads: Reads) {
  const client = new TppClient(target.url, target.clientId, target.redirectUri);
  // PSU-IP-Address is sent: the PSU is present, so the daily frequency does not apply.
  const accounts = await load({
    title: 'account list',
    url: target.url + reads.accountsPath,
    headers: client.tppHeaders(reads.psuToken),
  });
  const transactions = await load({
    title: 'transactions',
    url: target.url + reads.transactionsPath,
    headers: client.tppHeaders(reads.psuToken),
  });
  const funds = await load({
    title: 'funds confirmation',
    url: `${target.url}/psd2/v1/funds-confirmations`,
    method: 'POST',
    headers: { ...client.tppHeaders(reads.pisToken), 'content-type': 'application/json' },
    body: FUNDS_BODY,
  });
  return { accounts, transactions, funds };
}

/** Runs `work` over `items` with WORKERS concurrent loops; answers completions per second. */
async function throughput<T>(items: readonly T[], work: (item: T) => Promise<void>): Promise<number> {
  let next = 0;
  const started = Date.now();
  await Promise.all(
    Array.from({ length: WORKERS }, async () => {
      while (next < items.length) await work(items[next++]!);
    }),
  );
  return (items.length * 1000) / (Date.now() - started);
}

/** Payments initiated and authorized (sandbox redirect flow), ready to execute: from one account or five. */
async function preparePayments(target: Target, spread: boolean) {
  const client = new TppClient(target.url, target.clientId, target.redirectUri);
  const token = await client.clientCredentialsToken();
  const prepared: { paymentId: string; psuToken: string }[] = [];
  await throughput(
    Array.from({ length: EXECUTIONS }, (_, index) => (spread ? SPREAD[index % SPREAD.length]! : SPREAD[0]!)),
    async (payment) => {
      const initiated = await client.initiate(token, payment);
      if (initiated.status !== 200) throw new Error(`initiate ${initiated.status}`);
      const paymentId = initiated.body.paymentId;
      prepared.push({ paymentId, psuToken: (await client.authorizeScope(`PIS:${paymentId}`)).access_token });
    },
  );
  return prepared;
}

async function executionRate(target: Target, prepared: readonly { paymentId: string; psuToken: string }[]) {
  const client = new TppClient(target.url, target.clientId, target.redirectUri);
  return throughput(prepared, async ({ paymentId, psuToken }) => {
    const executed = await client.execute(DOMESTIC, paymentId, psuToken);
    if (executed.status !== 200 || executed.body.transactionStatus !== 'ACCC')
      throw new Error(`execute ${executed.status} ${JSON.stringify(executed.body)}`);
  });
}

/** A raw node:http server answering each benchmarked request with the gateway's own bytes. */
async function rawServer(answers: {
  accounts: string;
  transactions: string;
  funds: string;
}): Promise<Target> {
  const execute = (url: string) =>
    JSON.stringify({ paymentId: url.split('/').pop(), transactionStatus: 'ACCC' });
  const server: Server = createServer((request, response) => {
    request.resume();
    request.on('end', () => {
      const url = request.url ?? '';
      const body =
        request.method === 'PUT'
          ? execute(url)
          : url.startsWith('/psd2/v1/funds-confirmations')
            ? answers.funds
            : url.includes('/transactions')
              ? answers.transactions
              : answers.accounts;
      response.writeHead(200, { 'content-type': 'application/json; charset=utf-8' }).end(body);
    });
  });
  return listenRaw(server);
}

export async function measureAis(databaseUrl: string | undefined): Promise<AisRow[]> {
  const targets: [string, string | undefined][] = [['gateway on PGlite', undefined]];
  if (databaseUrl !== undefined) targets.push(['gateway on PostgreSQL', databaseUrl]);
  const rows: AisRow[] = [];
  let raw: Target | undefined;
  try {
    for (const [name, url] of targets) {
      const target = await gateway(url);
      try {
        const client = new TppClient(target.url, target.clientId, target.redirectUri);
        const reads = await prepareReads(client);
        if (raw === undefined) {
          const text = async (answer: Promise<{ body: unknown }>) => JSON.stringify((await answer).body);
          raw = await rawServer({
            accounts: await text(client.read(reads.accountsPath, reads.psuToken)),
            transactions: await text(client.read(reads.transactionsPath, reads.psuToken)),
            funds: await text(
              client.request('POST', '/psd2/v1/funds-confirmations', {
                headers: client.tppHeaders(reads.pisToken),
                json: JSON.parse(FUNDS_BODY),
              }),
            ),
          });
          const fake = Array.from({ length: EXECUTIONS }, () => ({
            paymentId: randomUUID(),
            psuToken: 'raw',
          }));
          rows.push({
            target: 'raw node:http',
            ...(await readRates(raw, reads)),
            ...(databaseUrl === undefined
              ? {}
              : { hot: await executionRate(raw, fake), spread: await executionRate(raw, fake) }),
          });
        }
        const rates = await readRates(target, reads);
        // Executions on PostgreSQL only (PGlite is one connection: the spread would not show).
        const executions =
          url === undefined
            ? {}
            : {
                hot: await executionRate(target, await preparePayments(target, false)),
                spread: await executionRate(target, await preparePayments(target, true)),
              };
        rows.push({ target: name, ...rates, ...executions });
      } finally {
        await target.close();
      }
    }
  } finally {
    await raw?.close();
  }
  return rows;
}

export function printAis(rows: readonly AisRow[]): void {
  const base = rows[0]!;
  const cell = (row: AisRow, value: number | undefined, baseline: number | undefined) => {
    if (value === undefined) return '-';
    if (row === base || baseline === undefined) return value.toFixed(0);
    return `${value.toFixed(0)} (${(value / baseline).toFixed(2)}x)`;
  };
  console.log('\nAccount information, funds confirmation and execution throughput:\n');
  console.log(
    '| target | account list req/s | transactions (90 days) req/s | funds confirmation req/s | executions/s, one hot account | executions/s, five accounts |',
  );
  console.log('|---|---|---|---|---|---|');
  for (const row of rows) {
    const cells = [
      cell(row, row.accounts, base.accounts),
      cell(row, row.transactions, base.transactions),
      cell(row, row.funds, base.funds),
      cell(row, row.hot, base.hot),
      cell(row, row.spread, base.spread),
    ];
    console.log(`| ${row.target} | ${cells.join(' | ')} |`);
  }
  console.log(
    `\nExecutions: ${EXECUTIONS} payments prepared (initiated and authorized), then executed by ${WORKERS} workers.`,
  );
}
