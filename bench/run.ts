// npm run bench: the gateway under load over loopback against baselines doing the same work, in the same
// run, in alternating rounds (raw, gateway, raw, gateway, ...; BENCH_ROUNDS, default 3), each figure the
// median of the rounds with its range. The load generator is always a process of its own (autocannon in
// bench/load-process.ts; flows and executions in bench/flow-process.ts). Every scenario runs twice: the
// hot mix (one account, app and token) and the realistic mix (BENCH_ACCOUNTS debtor accounts, 1,000,
// and BENCH_APPS apps, 50, with their tokens; payments and reads spread over them; bench/data.ts).
//
// Baselines: raw(work), a node:http server that parses, validates and builds its answers (bench/raw.ts);
// for executions raw pg, one `pg` transaction doing the same booking; on PostgreSQL also raw(work) + pg,
// raw(work) storing its initiations, concurrent ones in one INSERT (the figure "initiation, stored", and
// raw(work) + pg itself against raw(work)), and raw(work) keeping every step of its flows (the figures
// "five-step flow, stored"); Prism when installed, mocking the Berlin Group specification
// (BENCH_PRISM_SPEC) or else the gateway's own OpenAPI document (bench/prism.ts). On PostgreSQL
// (BENCH_DATABASE_URL or TEST_DATABASE_URL) and PGlite. Writes bench/results.json and bench/results.svg (bench/report.ts).
//
// BENCH_SECONDS (5) per run, BENCH_CONNECTIONS (50), BENCH_ROUNDS (3), BENCH_ONLY (scenarios whose name
// contains one of the comma-separated words; `memory` names the memory part, bench/memory.ts),
// BENCH_SKIP (parts: start, memory, payments, ais, postgres, pglite, tls), BENCH_EXECUTIONS (1000 per
// round), BENCH_FLOW_WORKERS (concurrent flows and executions, as many as connections), BENCH_ACCOUNTS,
// BENCH_APPS.
import { randomUUID } from 'node:crypto';
import { cpus } from 'node:os';
import { CONNECTIONS, gateway, ONLY, ROUNDS, SECONDS, type Target } from './common.ts';
import { databaseCpu } from './cpu.ts';
import {
  ACCOUNT_COUNT,
  APP_COUNT,
  accountListRequests,
  awaitingPayments,
  basketRequests,
  flowItems,
  fundsRequests,
  initiationRequests,
  type Mix,
  PRODUCT,
  preparedExecutions,
  prepareMixes,
  statusRequests,
  transactionRequests,
} from './data.ts';
import { alternate, executeRun, type Figure, flowRun, loadRun, type Sample, type Side } from './figures.ts';
import type { LoadRequest } from './load-process.ts';
import { type MemoryFigures, measureMemory, mergeMemory, printMemory } from './memory.ts';
import {
  type PrismDocument,
  prismAvailability,
  prismBaseline,
  prismDescription,
  prismRequests,
  startPrism,
} from './prism.ts';
import { type RawData, rawPgFlows, rawPgInitiations, rawPgServer, rawWorkServer } from './raw.ts';
import { markdownTable, mergeFigures, type Results, readResults, writeResults } from './report.ts';
import { measureStart, printStart, type StartFigures } from './start.ts';
import { measureTls, type TlsRow } from './tls.ts';

const DATABASE_URL = process.env.BENCH_DATABASE_URL || process.env.TEST_DATABASE_URL || undefined;
const EXECUTIONS = Number(process.env.BENCH_EXECUTIONS ?? 1000);
const SKIP = new Set((process.env.BENCH_SKIP ?? '').split(',').filter((part) => part !== ''));
/** Concurrent flows and executions (loops in the worker process): as many as connections by default. */
const WORKERS = Number(process.env.BENCH_FLOW_WORKERS ?? CONNECTIONS);
const AIS_SCENARIOS = ['account list', 'transactions (90 days)', 'funds confirmation'];
const selected = (scenario: string) =>
  !(SKIP.has('ais') && AIS_SCENARIOS.includes(scenario)) &&
  (ONLY.length === 0 || ONLY.some((word) => scenario.includes(word)));

type Backend = Figure['backend'];

interface Context {
  readonly backend: Backend;
  readonly gateway: Target;
  readonly raw: Target;
}

/** A scenario of autocannon requests: the same list to both sides. */
async function requestFigure(
  context: Context,
  scenario: string,
  mix: Mix,
  requests: readonly LoadRequest[],
  connections = CONNECTIONS,
  baseline = 'raw(work)',
  measured?: string,
): Promise<Figure> {
  return alternate(
    {
      scenario,
      mix: mix.name,
      backend: context.backend,
      connections,
      baseline,
      ...(measured === undefined ? {} : { measured }),
      unit: 'req/s',
    },
    (side) => loadRun(`${scenario} (${side})`, context[side].url, requests, connections),
  );
}

async function paymentFigures(
  context: Context,
  mixes: readonly Mix[],
  raw: Parameters<typeof awaitingPayments>[2],
) {
  const figures: Figure[] = [];
  for (const mix of mixes) {
    if (selected('initiation')) {
      figures.push(await requestFigure(context, 'initiation', mix, initiationRequests(mix)));
      figures.push(await requestFigure(context, 'initiation', mix, initiationRequests(mix), 10));
    }
    if (selected('status (ACTC)')) {
      const awaiting = await awaitingPayments(context.gateway, mix, raw);
      figures.push(await requestFigure(context, 'status (ACTC)', mix, statusRequests(awaiting)));
    }
    // Reads before the flows: the flows book payments on the realistic mix's accounts, which raw(work)'s
    // history would not hold.
    if (selected('account list'))
      figures.push(await requestFigure(context, 'account list', mix, accountListRequests(mix)));
    if (selected('transactions (90 days)'))
      figures.push(await requestFigure(context, 'transactions (90 days)', mix, transactionRequests(mix)));
    if (selected('funds confirmation'))
      figures.push(await requestFigure(context, 'funds confirmation', mix, fundsRequests(mix)));
    if (selected('five-step flow')) {
      const items = flowItems(mix);
      figures.push(
        await alternate(
          {
            scenario: 'five-step flow',
            mix: mix.name,
            backend: context.backend,
            connections: WORKERS,
            baseline: 'raw(work)',
            unit: 'flows/s',
          },
          (side) => flowRun(context[side].url, items, WORKERS),
        ),
      );
    }
    if (selected('basket of 20'))
      figures.push(await requestFigure(context, 'basket of 20', mix, basketRequests(mix, 20)));
  }
  return figures;
}

/**
 * The gateway's initiation (realistic mix) against raw(work) that keeps each payment and its answer in
 * PostgreSQL too (concurrent requests in one INSERT and one commit, bench/raw.ts): how close the gateway
 * comes to what Node and PostgreSQL allow for an initiation that is stored. Then that server against
 * raw(work) in alternating rounds of its own: the ratio for initiation, reached by a server that
 * does nothing but validate and store.
 */
async function storedInitiationFigures(
  context: Context,
  mix: Mix,
  raw: RawData,
  databaseUrl: string,
): Promise<Figure[]> {
  const stored = await rawPgInitiations(databaseUrl);
  const rawStoring = await rawWorkServer(raw, stored.keep);
  const requests = initiationRequests(mix);
  try {
    return [
      await requestFigure(
        { ...context, raw: rawStoring },
        'initiation, stored',
        mix,
        requests,
        CONNECTIONS,
        'raw(work) + pg',
      ),
      await requestFigure(
        { ...context, gateway: rawStoring },
        'initiation, stored by raw(work) + pg',
        mix,
        requests,
        CONNECTIONS,
        'raw(work)',
        'raw(work) + pg',
      ),
    ];
  } finally {
    await rawStoring.close();
    await stored.close();
  }
}

/**
 * The gateway's five-step flow (realistic mix) against raw(work) that keeps every step in PostgreSQL
 * too (bench/raw.ts rawPgFlows: the payment, the code, the token, the booking, the status read from the
 * row); then that server against raw(work) in alternating rounds of its own: what Node and PostgreSQL
 * allow for a flow that is kept, and how much of raw(work)'s rate it leaves.
 */
async function storedFlowFigures(
  context: Context,
  mix: Mix,
  raw: RawData,
  databaseUrl: string,
): Promise<Figure[]> {
  const items = flowItems(mix);
  const accounts = new Set(
    items.flatMap((item) => {
      const body = item.body as Record<string, { value: string }>;
      return [body.debtorAccount!.value, body.creditorAccount!.value];
    }),
  );
  const stored = await rawPgFlows(databaseUrl, [...accounts]);
  const rawStoring = await rawWorkServer(raw, stored.keep, stored.flows);
  const figure = (scenario: string, sides: Context, baseline: string, measured?: string) =>
    alternate(
      {
        scenario,
        mix: mix.name,
        backend: context.backend,
        connections: WORKERS,
        baseline,
        ...(measured === undefined ? {} : { measured }),
        unit: 'flows/s',
      },
      (side) => flowRun(sides[side].url, items, WORKERS),
    );
  try {
    return [
      await figure('five-step flow, stored', { ...context, raw: rawStoring }, 'raw(work) + pg'),
      await figure(
        'five-step flow, stored by raw(work) + pg',
        { ...context, gateway: rawStoring },
        'raw(work)',
        'raw(work) + pg',
      ),
    ];
  } finally {
    await rawStoring.close();
    await stored.close();
  }
}

/** Executions against raw pg: EXECUTIONS payments prepared on each side before each run. */
async function executionFigures(
  context: Context,
  mixes: readonly Mix[],
  databaseUrl: string,
): Promise<Figure[]> {
  const accountIds = new Set(
    mixes.flatMap((mix) =>
      mix.debtors.flatMap((_, index) => [mix.debtors[index]!.accountId, mix.creditorOf(index).accountId]),
    ),
  );
  const rawPg = await rawPgServer(databaseUrl, [...accountIds]);
  const figures: Figure[] = [];
  try {
    for (const mix of mixes) {
      figures.push(
        await alternate(
          {
            scenario: 'executions',
            mix: mix.name,
            backend: context.backend,
            connections: WORKERS,
            baseline: 'raw pg',
            unit: 'executions/s',
          },
          async (side: Side): Promise<Sample> => {
            if (side === 'gateway') {
              const items = await preparedExecutions(context.gateway, mix, EXECUTIONS);
              return executeRun(context.gateway.url, items, WORKERS);
            }
            const items = Array.from({ length: EXECUTIONS }, (_, index) => ({
              clientId: 'raw',
              paymentId: randomUUID(),
              psuToken: 'raw',
              product: PRODUCT,
              debtor: mix.debtors[index % mix.debtors.length]!.accountId,
              creditor: mix.creditorOf(index % mix.debtors.length).accountId,
            }));
            await rawPg.prepare(items);
            return executeRun(rawPg.url, items, WORKERS);
          },
        ),
      );
    }
  } finally {
    await rawPg.close();
  }
  return figures;
}

/**
 * The gateway's initiation (realistic mix) against Prism's: on the Berlin Group specification, Prism gets
 * that specification's SEPA initiation; on the gateway's own document, the very requests the gateway gets.
 */
async function prismFigure(
  context: Context,
  mix: Mix,
  command: string,
  document: PrismDocument,
): Promise<Figure> {
  const prism = await startPrism(command, document, context.gateway.url);
  try {
    const gatewayRequests = initiationRequests(mix);
    const prismLoad = document.kind === 'berlin-group' ? prismRequests() : gatewayRequests;
    return await alternate(
      {
        scenario: 'initiation vs Prism',
        mix: mix.name,
        backend: context.backend,
        connections: CONNECTIONS,
        baseline: prismBaseline(document),
        unit: 'req/s',
      },
      (side) =>
        side === 'raw'
          ? loadRun('Prism initiation', prism.url, prismLoad, CONNECTIONS, document.kind === 'gateway')
          : loadRun('initiation', context.gateway.url, gatewayRequests, CONNECTIONS),
    );
  } finally {
    await prism.close();
  }
}

async function measureBackend(
  backend: Backend,
  databaseUrl: string | undefined,
  prism: ReturnType<typeof prismAvailability>,
) {
  console.log(`\n${backend}: preparing ${ACCOUNT_COUNT} accounts, ${APP_COUNT} apps and their consents ...`);
  const began = Date.now();
  console.log(await databaseCpu(databaseUrl));
  const target = await gateway(databaseUrl);
  const figures: Figure[] = [];
  try {
    const { hot, realistic, raw } = await prepareMixes(target);
    const rawWork = await rawWorkServer(raw);
    try {
      console.log(`prepared in ${((Date.now() - began) / 1000).toFixed(0)} s`);
      const context: Context = { backend, gateway: target, raw: rawWork };
      const mixes = [hot, realistic];
      // Warm-up (JIT, pools, caches): a short run of initiations and flows on each side, not reported.
      for (const side of ['raw', 'gateway'] as const) {
        await loadRun('warm-up', context[side].url, initiationRequests(realistic), CONNECTIONS);
        await flowRun(context[side].url, flowItems(hot), CONNECTIONS);
      }
      figures.push(...(await paymentFigures(context, mixes, raw)));
      if (databaseUrl !== undefined && selected('initiation, stored'))
        figures.push(...(await storedInitiationFigures(context, realistic, raw, databaseUrl)));
      if (databaseUrl !== undefined && selected('five-step flow, stored'))
        figures.push(...(await storedFlowFigures(context, realistic, raw, databaseUrl)));
      if (databaseUrl !== undefined && selected('executions'))
        figures.push(...(await executionFigures(context, mixes, databaseUrl)));
      if (prism.available && selected('initiation vs Prism'))
        figures.push(await prismFigure(context, realistic, prism.command, prism.document));
    } finally {
      await rawWork.close();
    }
  } finally {
    await target.close();
  }
  return figures;
}

async function main(): Promise<void> {
  const began = Date.now();
  console.log(
    `psd2-gateway bench: ${SECONDS} s per run, ${ROUNDS} alternating rounds, ${CONNECTIONS} connections (initiation also 10), node ${process.version}, ${cpus().length} cores`,
  );
  const prism = prismAvailability();
  console.log(prismDescription(prism));
  let start: StartFigures | undefined;
  if (!SKIP.has('start') && ONLY.length === 0) {
    start = await measureStart();
    printStart(start);
  }
  // The memory part (bench/memory.ts): run unless skipped; with BENCH_ONLY only when named.
  let memory: MemoryFigures | undefined;
  if (!SKIP.has('memory') && (ONLY.length === 0 || ONLY.includes('memory'))) {
    memory = await measureMemory(DATABASE_URL, {
      postgres: !SKIP.has('postgres'),
      pglite: !SKIP.has('pglite'),
    });
    printMemory(memory);
  }
  const figures: Figure[] = [];
  // BENCH_ONLY=memory alone names no scenario: nothing to prepare for them.
  if (!SKIP.has('payments') && !(ONLY.length > 0 && ONLY.every((word) => word === 'memory'))) {
    if (DATABASE_URL !== undefined && !SKIP.has('postgres'))
      figures.push(...(await measureBackend('PostgreSQL', DATABASE_URL, prism)));
    else if (DATABASE_URL === undefined)
      console.log('(PostgreSQL skipped: set BENCH_DATABASE_URL or TEST_DATABASE_URL)');
    if (!SKIP.has('pglite')) figures.push(...(await measureBackend('PGlite', undefined, prism)));
  }
  let tls: TlsRow[] | undefined;
  if (!SKIP.has('tls') && ONLY.length === 0) {
    tls = await measureTls(DATABASE_URL, SECONDS);
    console.log('\nLive-mode initiation over mutual TLS (16 connections, one run):\n');
    console.log('| target | keep-alive req/s | new connection per request req/s |');
    console.log('|---|---|---|');
    const [base] = tls;
    for (const row of tls) {
      const cell = (value: number, of: number) =>
        row === base ? value.toFixed(0) : `${value.toFixed(0)} (${(value / of).toFixed(2)}x)`;
      console.log(
        `| ${row.target} | ${cell(row.keepAlive, base!.keepAlive)} | ${cell(row.newConnection, base!.newConnection)} |`,
      );
    }
  }
  const earlier = readResults();
  // The settings and Prism describe the figures: a run that measured none (memory, start or TLS alone)
  // leaves those of the run that did.
  const kept = figures.length === 0 ? earlier : undefined;
  const results: Results = {
    generatedAt: new Date().toISOString(),
    machine: { cpus: cpus().length, node: process.version, platform: process.platform },
    settings: kept?.settings ?? {
      seconds: SECONDS,
      rounds: ROUNDS,
      connections: CONNECTIONS,
      accounts: ACCOUNT_COUNT,
      apps: APP_COUNT,
      executionsPerRound: EXECUTIONS,
    },
    prism: kept?.prism ?? prismDescription(prism),
    durationSeconds: Math.round((Date.now() - began) / 1000),
    figures: mergeFigures(earlier?.figures ?? [], figures),
    start: start ?? earlier?.start,
    memory: mergeMemory(earlier?.memory, memory),
    tls: tls ?? earlier?.tls,
  };
  writeResults(results);
  console.log(`\n${markdownTable(results)}\n`);
  console.log(`Wrote bench/results.json and bench/results.svg (${results.durationSeconds} s).`);
}

await main();
