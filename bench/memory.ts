// npm run bench, part "memory" (issue 18: "Memory on PostgreSQL <= 150 MB resident under load; no growth
// over a 3-minute soak", "Embedded database: resident memory under load <= 300 MB"). The compiled
// gateway is spawned as an operator runs it (`node <the flags of package.json's start script>
// bin/psd2-gateway.mjs serve`), once on a PostgreSQL database of its own (CREATE DATABASE, dropped at the
// end) and once on the embedded PGlite (the default: a copy of the sandbox snapshot), the rate limits off
// and LOG_LEVEL=warn. Everything it serves is made through its API: the sandbox's test customers and
// accounts, BENCH_MEMORY_APPS apps (50) registered through onboarding with their tokens, a consent for
// each of BENCH_MEMORY_READERS app-and-PSU pairs (200), payments awaiting authorization for the status
// reads. autocannon, in a process of its own (bench/load-process.ts), then drives a mix at it: 4 in 10
// initiations (every debtor account, every app, a new TPP-Request-ID each), 3 status reads, 3 account
// reads (list, balances, transactions). The gateway's resident memory (/proc/<pid>/status VmRSS) is
// read every second: idle after the start, peak and median under load, and over the soak
// (BENCH_SOAK_SECONDS, 180, on PostgreSQL; BENCH_PGLITE_SOAK_SECONDS, 60, on PGlite) the median of the
// first and of the last minute (a third of the run when it is shorter than three minutes) and the
// least-squares slope in MB per minute, over the whole load and after its first window.
//
// BENCH_MEMORY_CONNECTIONS (50), BENCH_MEMORY_NODE_FLAGS (node flags added after the start script's, for
// experiments, e.g. `--max-old-space-size=64`).
//
// What it found (2026-11-25, a 2-core machine shared with other work): with `--max-semi-space-size=2`
// alone the gateway on PostgreSQL went up and down between 130 and 236 MB resident under load. The
// young generation is so small that requests' short-lived objects are promoted, and with a heap limit
// sized for the machine V8 lets the old generation grow to up to four times what survives before a full
// collection (process.memoryUsage: 40-70 MB live, up to 154 MB heap). With a limit of 256 MB or less V8
// takes its memory-constrained growing factor (1.3): 129-135 MB flat. `--max-semi-space-size=4` halves
// the time spent in scavenges (4.3 s to 2.4 s in 40 s of load) for about 4 MB. The container's command
// passes both; a live heap near 256 MB would end the process, several times what the bounded caches can
// hold. `npm start`, the sandbox's command, passes `--max-semi-space-size=2` since issue 40 (the sandbox
// idle under 150 MB; its initiation throughput measured unchanged), with `--v8-pool-size=1`,
// `--liftoff-only` and `--no-maglev` (docs/benchmarks.md, "Start and memory of the sandbox"): on
// PostgreSQL under heavy load that costs the scavenges above; `BENCH_MEMORY_NODE_FLAGS=--max-semi-space-size=4` measures both.
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { TppClient } from '@psd2-gateway/client';
import pg from 'pg';
import { freePort } from '../test/helpers/serve-process.ts';
import { eachConcurrently } from './data.ts';
import type { LoadRequest, LoadResult } from './load-process.ts';

type Backend = 'PostgreSQL' | 'PGlite';

const SOAK_SECONDS = Number(process.env.BENCH_SOAK_SECONDS ?? 180);
const PGLITE_SOAK_SECONDS = Number(process.env.BENCH_PGLITE_SOAK_SECONDS ?? 60);
const CONNECTIONS = Number(process.env.BENCH_MEMORY_CONNECTIONS ?? 50);
const APPS = Number(process.env.BENCH_MEMORY_APPS ?? 50);
const READERS = Number(process.env.BENCH_MEMORY_READERS ?? 200);
const STATUS_PAYMENTS = 500;
const EXTRA_FLAGS = (process.env.BENCH_MEMORY_NODE_FLAGS ?? '').split(/\s+/).filter((flag) => flag !== '');
const PRODUCT = 'handelsbanken-domestic-credit-transfer';
const INITIATION_PATH = `/psd2/se/v2/payments/private/single/${PRODUCT}`;
const REDIRECT = 'http://127.0.0.1/cb';
/** Every product the mix calls; an app registered through onboarding may use only these. */
const PRODUCTS = ['payments-se-private', 'payments', 'consents', 'accounts'];

export interface MemoryRun {
  readonly backend: Backend;
  readonly nodeArgs: readonly string[];
  readonly loadSeconds: number;
  readonly connections: number;
  readonly mix: {
    readonly apps: number;
    readonly debtorAccounts: number;
    readonly readers: number;
    readonly statusPayments: number;
  };
  readonly requestsPerSecond: number;
  readonly requests: number;
  readonly failed: number;
  /** After the start (ready, then 2 s without requests): the median of three readings a second apart. */
  readonly idleMb: number;
  /** After the preparation through the API (apps, tokens, consents, payments), before the load. */
  readonly preparedMb: number;
  readonly peakMb: number;
  readonly medianMb: number;
  /** The kernel's high-water mark of the resident set (VmHWM) at the end of the load. */
  readonly highWaterMb: number;
  /** The first and last window of the load (60 s, or a third of a shorter run): their medians. */
  readonly windowSeconds: number;
  readonly firstWindowMedianMb: number;
  readonly lastWindowMedianMb: number;
  /** Least-squares slope of RSS over time, MB per minute: the whole load, and after its first window. */
  readonly slopeMbPerMinute: number;
  readonly slopeAfterFirstWindowMbPerMinute: number;
  /** 5 s after the load ended. */
  readonly afterLoadMb: number;
  /** The resident memory read every second under load, MB (one decimal). */
  readonly rssMbPerSecond: readonly number[];
}

export type MemoryFigures = Partial<Record<Backend, MemoryRun>>;

/** The node flags `npm start` passes (package.json's start script), then the gateway's command. */
export function startArguments(): string[] {
  const { scripts } = JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: { start: string } };
  const words = scripts.start.trim().split(/\s+/);
  const script = words.findIndex((word) => word.endsWith('psd2-gateway.mjs'));
  if (words[0] !== 'node' || script < 0) throw new Error(`memory bench: cannot read "${scripts.start}"`);
  return [...words.slice(1, script), ...EXTRA_FLAGS, ...words.slice(script)];
}

function status(pid: number): { rssMb: number; hwmMb: number } {
  const text = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(text)?.[1] ?? 0);
  return { rssMb: kb('VmRSS') / 1024, hwmMb: kb('VmHWM') / 1024 };
}

const round1 = (value: number) => Math.round(value * 10) / 10;
const median = (values: readonly number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length / 2;
  return sorted.length % 2 === 1 ? sorted[Math.floor(middle)]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};
/** Least-squares slope of values read once a second, per minute. */
export function slopePerMinute(values: readonly number[]): number {
  if (values.length < 2) return 0;
  const n = values.length;
  const meanX = (n - 1) / 2;
  const meanY = values.reduce((sum, value) => sum + value, 0) / n;
  let covariance = 0;
  let variance = 0;
  for (const [x, y] of values.entries()) {
    covariance += (x - meanX) * (y - meanY);
    variance += (x - meanX) ** 2;
  }
  return (covariance / variance) * 60;
}

interface Gateway {
  readonly url: string;
  readonly pid: number;
  readonly args: readonly string[];
  output(): string;
  stop(): Promise<void>;
}

async function spawnGateway(env: Record<string, string>): Promise<Gateway> {
  const port = await freePort();
  const args = startArguments();
  const child: ChildProcess = spawn(process.execPath, args, {
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      // One client address and few apps send far more than the rate limits allow.
      RATE_LIMIT_API_PER_APP: '0',
      RATE_LIMIT_API_PER_ADDRESS: '0',
      RATE_LIMIT_AUTH_PER_APP: '0',
      RATE_LIMIT_AUTH_PER_ADDRESS: '0',
      RATE_LIMIT_PSU_LOGIN_PER_ADDRESS: '0',
      DATABASE_URL: '',
      DATA_DIR: '',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString('utf8')).slice(-8_000);
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const killer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    await exited;
    clearTimeout(killer);
  };
  const until = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`memory bench: the gateway exited:\n${output}`);
    if (Date.now() > until) {
      await stop();
      throw new Error(`memory bench: the gateway was not ready in 60 s:\n${output}`);
    }
    try {
      if ((await fetch(`${url}/healthz`)).status === 200) break;
    } catch {
      // Not listening yet.
    }
    await sleep(50);
  }
  return { url, pid: child.pid!, args, output: () => output, stop };
}

/** A PostgreSQL database of its own on the server `serverUrl` names; dropped by `drop`. */
async function freshDatabase(serverUrl: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `bench_mem_${randomBytes(5).toString('hex')}`;
  const onServer = async (text: string) => {
    const client = new pg.Client({ connectionString: serverUrl });
    await client.connect();
    try {
      await client.query(text);
    } finally {
      await client.end();
    }
  };
  await onServer(`CREATE DATABASE ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return { url: url.href, drop: () => onServer(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}

interface App {
  readonly clientId: string;
  readonly pis: string;
}
interface Debtor {
  readonly bban: string;
}
interface Reader {
  readonly app: App;
  readonly psuToken: string;
  readonly accountId: string;
}

const headersOf = (app: App, token: string, extra: Record<string, string> = {}) => ({
  'X-Gateway-Client-Id': app.clientId,
  'PSU-IP-Address': '192.0.2.1',
  'TPP-Transaction-ID': randomUUID(),
  Authorization: `Bearer ${token}`,
  ...extra,
});

const paymentBody = (debtors: readonly Debtor[], index: number) => ({
  debtorAccount: { value: debtors[index % debtors.length]!.bban, accountType: 'BBAN', currency: 'SEK' },
  creditorAccount: { value: debtors[(index + 1) % debtors.length]!.bban, accountType: 'BBAN' },
  instructedAmount: { currency: 'SEK', amount: `${1 + (index % 97)}.25` },
  remittanceInformationUnstructured: `Bench ${index}`,
});

/** Apps, tokens, consents and payments, all through the API; the load's request list. */
async function prepare(url: string): Promise<{ requests: LoadRequest[]; mix: MemoryRun['mix'] }> {
  const data = (await (await fetch(`${url}/sandbox/test-data`)).json()) as {
    app: { clientId: string; redirectUri: string };
    psus: { psuId: string; accounts: { accountId: string; bban?: string; currency: string }[] }[];
  };
  // The Swedish customers' SEK accounts at the bank (clearing 6xxx): the debtors an initiation may name.
  const swedish = data.psus
    .map((psu) => ({
      psuId: psu.psuId,
      accounts: psu.accounts.filter((account) => account.currency === 'SEK' && account.bban?.startsWith('6')),
    }))
    .filter((psu) => psu.accounts.length > 0);
  const sandbox = new TppClient(url, data.app.clientId, data.app.redirectUri);
  const sandboxApp: App = { clientId: data.app.clientId, pis: await sandbox.clientCredentialsToken('PIS') };
  // Keep the accounts an initiation is accepted from (the sandbox's scenario accounts may refuse).
  const candidates = swedish.flatMap((psu) => psu.accounts.map((account) => ({ bban: account.bban! })));
  const debtors: Debtor[] = [];
  for (const [index, candidate] of candidates.entries()) {
    const answer = await sandbox.initiate(sandboxApp.pis, {
      path: INITIATION_PATH,
      body: paymentBody([candidate, candidates[(index + 1) % candidates.length]!], 0),
    });
    if (answer.status === 200) debtors.push(candidate);
  }
  if (debtors.length < 2) throw new Error('memory bench: fewer than two debtor accounts accept initiations');

  const onboarding = new TppClient(url, '', REDIRECT).onboarding;
  const enrolled = await onboarding.enroll();
  const tppId = enrolled.body.clientId;
  const admin = (await onboarding.adminToken(tppId)).body.access_token;
  const apps = await eachConcurrently(Array.from({ length: APPS }), 4, async (_, index) => {
    const [first, ...more] = PRODUCTS;
    const registered = await onboarding.registerApp(
      tppId,
      admin,
      {
        name: `Memory bench app ${index}`,
        description: 'An app of the memory bench',
        oauthRedirectURI: REDIRECT,
      },
      first!,
    );
    if (registered.status !== 200)
      throw new Error(`memory bench: register ${registered.status} ${JSON.stringify(registered.body)}`);
    const clientId = registered.body.clientId;
    for (const product of more) {
      const added = await onboarding.subscribe(tppId, admin, clientId, product);
      if (added.status !== 200)
        throw new Error(`memory bench: subscribe ${added.status} ${JSON.stringify(added.body)}`);
    }
    const client = new TppClient(url, clientId, REDIRECT);
    return {
      clientId,
      pis: await client.clientCredentialsToken('PIS'),
      ais: await client.clientCredentialsToken('AIS'),
    };
  });
  /** A consent of `app` for the PSU, approved in the sandbox: the PSU's token, or undefined if refused. */
  const consentToken = async (app: (typeof apps)[number], psuId: string) => {
    const client = new TppClient(url, app.clientId, REDIRECT);
    const created = await client.createConsent(app.ais, { headers: { 'PSU-ID': psuId } });
    if (created.status !== 201 && created.status !== 200) return undefined;
    return client
      .authorizeScope(`AIS:${created.body.consentId}`)
      .then((answer) => answer.access_token)
      .catch(() => undefined);
  };
  // Keep the customers whose consents are approved and read (the sandbox's scenario customers may deny,
  // or have their consents expire at once).
  const consenting: typeof swedish = [];
  for (const psu of swedish) {
    const token = await consentToken(apps[0]!, psu.psuId);
    if (token === undefined) continue;
    const read = await fetch(`${url}/psd2/v1/accounts`, {
      headers: { ...headersOf(apps[0]!, token), 'TPP-Request-ID': randomUUID() },
    });
    if (read.status === 200) consenting.push(psu);
  }
  if (consenting.length === 0) throw new Error('memory bench: no customer approves a consent');
  const readers = await eachConcurrently(Array.from({ length: READERS }), 8, async (_, index) => {
    const app = apps[index % apps.length]!;
    // Every app with every customer in turn: one consent per pair while pairs last.
    const psu = consenting[(index + Math.floor(index / apps.length)) % consenting.length]!;
    const psuToken = await consentToken(app, psu.psuId);
    if (psuToken === undefined) throw new Error(`memory bench: consent of ${psu.psuId} refused`);
    const account = psu.accounts[Math.floor(index / consenting.length) % psu.accounts.length]!;
    return { app, psuToken, accountId: account.accountId } satisfies Reader;
  });
  const awaiting = await eachConcurrently(Array.from({ length: STATUS_PAYMENTS }), 8, async (_, index) => {
    const app = apps[index % apps.length]!;
    const answer = await new TppClient(url, app.clientId, REDIRECT).initiate(app.pis, {
      path: INITIATION_PATH,
      body: paymentBody(debtors, index),
    });
    if (answer.status !== 200)
      throw new Error(`memory bench: initiate ${answer.status} ${JSON.stringify(answer.body)}`);
    return { app, paymentId: answer.body.paymentId };
  });

  const dateFrom = new Date(Date.now() - 90 * 86_400_000).toISOString().slice(0, 10);
  const requests: LoadRequest[] = [];
  // A cycle of ten: 4 initiations, 3 status reads, 3 account reads; long enough that every debtor,
  // app, reader and awaiting payment comes round.
  const kinds = [
    'pay',
    'status',
    'list',
    'pay',
    'transactions',
    'status',
    'pay',
    'balances',
    'status',
    'pay',
  ];
  const length = 10 * Math.max(apps.length, readers.length, awaiting.length, debtors.length);
  for (let index = 0; index < length; index += 1) {
    const kind = kinds[index % kinds.length]!;
    const app = apps[index % apps.length]!;
    const reader = readers[index % readers.length]!;
    const payment = awaiting[index % awaiting.length]!;
    if (kind === 'pay')
      requests.push({
        method: 'POST',
        path: INITIATION_PATH,
        headers: headersOf(app, app.pis, { 'content-type': 'application/json' }),
        body: JSON.stringify(paymentBody(debtors, index)),
      });
    else if (kind === 'status')
      requests.push({
        method: 'GET',
        path: `/psd2/v1/payments/${PRODUCT}/${payment.paymentId}/status`,
        headers: headersOf(payment.app, payment.app.pis, { Country: 'SE' }),
      });
    else
      requests.push({
        method: 'GET',
        path:
          kind === 'list'
            ? '/psd2/v1/accounts'
            : kind === 'balances'
              ? `/psd2/v1/accounts/${reader.accountId}/balances`
              : `/psd2/v1/accounts/${reader.accountId}/transactions?dateFrom=${dateFrom}`,
        headers: headersOf(reader.app, reader.psuToken),
      });
  }
  // Every reader's, payment's and kind's request answered once before the load: a mistake in the mix
  // shows here, not as a failed soak.
  const distinct = Math.max(readers.length, awaiting.length);
  for (const request of requests
    .slice(0, 10 * distinct)
    .filter((item, index) => index < 10 || item.method === 'GET')) {
    const answer = await fetch(`${url}${request.path}`, {
      method: request.method,
      headers: { ...request.headers, 'TPP-Request-ID': randomUUID() },
      ...(request.body === undefined ? {} : { body: request.body }),
    });
    if (!answer.ok)
      throw new Error(
        `memory bench: ${request.method} ${request.path}: ${answer.status} ${await answer.text()}`,
      );
  }
  return {
    requests,
    mix: {
      apps: apps.length,
      debtorAccounts: debtors.length,
      readers: readers.length,
      statusPayments: awaiting.length,
    },
  };
}

async function loadProcess(options: unknown, seconds: number): Promise<LoadResult> {
  const dir = mkdtempSync(join(tmpdir(), 'psd2-bench-memory-'));
  const file = join(dir, 'options.json');
  writeFileSync(file, JSON.stringify(options));
  try {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', 'bench/load-process.ts', file],
      { maxBuffer: 1 << 20, timeout: (seconds + 120) * 1000 },
    );
    return JSON.parse(stdout) as LoadResult;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function measureOne(
  backend: Backend,
  env: Record<string, string>,
  seconds: number,
): Promise<MemoryRun> {
  const gateway = await spawnGateway(env);
  try {
    await sleep(2_000);
    const idle: number[] = [];
    for (let reading = 0; reading < 3; reading += 1) {
      idle.push(status(gateway.pid).rssMb);
      await sleep(1_000);
    }
    console.log(
      `${backend}: ready, ${round1(median(idle))} MB resident idle; preparing apps, consents, payments ...`,
    );
    const { requests, mix } = await prepare(gateway.url);
    const preparedMb = status(gateway.pid).rssMb;
    console.log(
      `${backend}: ${mix.apps} apps, ${mix.debtorAccounts} debtor accounts, ${mix.readers} consents, ${mix.statusPayments} payments; ${round1(preparedMb)} MB; load for ${seconds} s at ${CONNECTIONS} connections ...`,
    );
    const samples: number[] = [];
    const sampler = setInterval(() => samples.push(status(gateway.pid).rssMb), 1_000);
    let result: LoadResult;
    try {
      result = await loadProcess(
        { url: gateway.url, connections: CONNECTIONS, seconds, requests, requestIds: true },
        seconds,
      );
    } finally {
      clearInterval(sampler);
    }
    const highWaterMb = status(gateway.pid).hwmMb;
    await sleep(5_000);
    const afterLoadMb = status(gateway.pid).rssMb;
    if (result.failed > result.total * 0.001)
      throw new Error(
        `memory bench (${backend}): ${result.failed} of ${result.total} requests failed: ${JSON.stringify(result.statusCodes)}, ${result.errors} errors, ${result.timeouts} timeouts\n${gateway.output()}`,
      );
    const window = Math.min(60, Math.floor(samples.length / 3));
    return {
      backend,
      nodeArgs: gateway.args,
      loadSeconds: seconds,
      connections: CONNECTIONS,
      mix,
      requestsPerSecond: Math.round(result.average),
      requests: result.total,
      failed: result.failed,
      idleMb: round1(median(idle)),
      preparedMb: round1(preparedMb),
      peakMb: round1(Math.max(...samples)),
      medianMb: round1(median(samples)),
      highWaterMb: round1(highWaterMb),
      windowSeconds: window,
      firstWindowMedianMb: round1(median(samples.slice(0, window))),
      lastWindowMedianMb: round1(median(samples.slice(-window))),
      slopeMbPerMinute: Math.round(slopePerMinute(samples) * 100) / 100,
      slopeAfterFirstWindowMbPerMinute: Math.round(slopePerMinute(samples.slice(window)) * 100) / 100,
      afterLoadMb: round1(afterLoadMb),
      rssMbPerSecond: samples.map(round1),
    };
  } finally {
    await gateway.stop();
  }
}

/** The gateway's memory on PostgreSQL (when `serverUrl` is given) and on PGlite. */
export async function measureMemory(
  serverUrl: string | undefined,
  backends: { readonly postgres: boolean; readonly pglite: boolean },
): Promise<MemoryFigures> {
  if (!existsSync('dist/cli.js')) throw new Error('memory bench: build first (npm run build)');
  const figures: { -readonly [key in Backend]?: MemoryRun } = {};
  if (backends.postgres && serverUrl !== undefined) {
    const database = await freshDatabase(serverUrl);
    try {
      figures.PostgreSQL = await measureOne('PostgreSQL', { DATABASE_URL: database.url }, SOAK_SECONDS);
    } finally {
      await database.drop();
    }
  } else if (backends.postgres)
    console.log('(memory on PostgreSQL skipped: set BENCH_DATABASE_URL or TEST_DATABASE_URL)');
  if (backends.pglite) figures.PGlite = await measureOne('PGlite', {}, PGLITE_SOAK_SECONDS);
  return figures;
}

/** The figures of this run over the earlier run's: a run of one backend keeps the other's. */
export function mergeMemory(earlier: unknown, fresh: MemoryFigures | undefined): MemoryFigures | undefined {
  if (fresh === undefined) return earlier as MemoryFigures | undefined;
  return { ...((earlier ?? {}) as MemoryFigures), ...fresh };
}

export function printMemory(figures: MemoryFigures): void {
  const runs = Object.values(figures);
  if (runs.length === 0) return;
  console.log(
    '\nResident memory of the gateway (node bin/psd2-gateway.mjs serve as npm start runs it) under a mixed load (4/10 initiations, 3/10 status reads, 3/10 account reads), MB:\n',
  );
  console.log(
    '| backend | load | req/s | idle | prepared | median under load | peak | first / last window median | slope MB/min (all; after first window) | 5 s after | VmHWM |',
  );
  console.log('|---|---|---|---|---|---|---|---|---|---|---|');
  for (const run of runs)
    console.log(
      `| ${run.backend} | ${run.loadSeconds} s, ${run.connections} conn | ${run.requestsPerSecond} | ${run.idleMb} | ${run.preparedMb} | ${run.medianMb} | ${run.peakMb} | ${run.firstWindowMedianMb} / ${run.lastWindowMedianMb} (${run.windowSeconds} s) | ${run.slopeMbPerMinute}; ${run.slopeAfterFirstWindowMbPerMinute} | ${run.afterLoadMb} | ${run.highWaterMb} |`,
    );
}
