// A figure of the bench: a scenario under one mix on one backend, measured in alternating rounds against
// its baseline (raw, gateway, raw, gateway, ...), summarized as the median and range of each side's
// rate, of the per-round ratio (gateway / baseline), and of the p99 latencies.
import { inProcess, ROUNDS, SECONDS } from './common.ts';
import { cpuNow } from './cpu.ts';
import type { ExecuteItem, FlowItem, WorkerResult } from './flow-process.ts';
import type { LoadRequest, LoadResult } from './load-process.ts';

export interface Spread {
  readonly median: number;
  readonly min: number;
  readonly max: number;
}

export interface Round {
  readonly raw: number;
  readonly gateway: number;
  readonly rawP99: number;
  readonly gatewayP99: number;
  /** CPU µs per operation (bench/cpu.ts: the serving process and, on PostgreSQL, the database server). */
  readonly rawCpuUs: number;
  readonly gatewayCpuUs: number;
}

export interface Figure {
  readonly scenario: string;
  readonly mix: 'hot' | 'realistic';
  readonly backend: 'PostgreSQL' | 'PGlite';
  readonly connections: number;
  /** What the ratio is to: raw(work), raw pg or Prism. */
  readonly baseline: string;
  /** What was measured against the baseline, when it is not the gateway (e.g. raw(work) + pg). */
  readonly measured?: string;
  readonly unit: string;
  readonly gateway: Spread;
  readonly raw: Spread;
  readonly ratio: Spread;
  readonly p99Ms: { readonly gateway: Spread; readonly raw: Spread };
  /** Gateway p99 / baseline p99 per round. */
  readonly p99Ratio: Spread;
  /** CPU µs per operation on each side (bench/cpu.ts): what a noisy machine disturbs least. */
  readonly cpuUs: { readonly gateway: Spread; readonly raw: Spread };
  readonly rounds: readonly Round[];
  readonly measuredAt: string;
}

export interface Sample {
  readonly rate: number;
  readonly p99: number;
  /** Operations completed in the run (requests or flows). */
  readonly done: number;
}

export type Side = 'raw' | 'gateway';

export function spread(values: readonly number[], digits = 0): Spread {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length / 2;
  const median =
    sorted.length % 2 === 1 ? sorted[Math.floor(middle)]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
  const round = (value: number) => Number(value.toFixed(digits));
  return { median: round(median), min: round(sorted[0]!), max: round(sorted.at(-1)!) };
}

/** ROUNDS alternating rounds of `measure`, the baseline first in each. */
export async function alternate(
  describe: Omit<
    Figure,
    'gateway' | 'raw' | 'ratio' | 'p99Ms' | 'p99Ratio' | 'cpuUs' | 'rounds' | 'measuredAt'
  >,
  measure: (side: Side, round: number) => Promise<Sample>,
): Promise<Figure> {
  const rounds: Round[] = [];
  const measured = async (side: Side, round: number) => {
    const began = cpuNow();
    const sample = await measure(side, round);
    return { ...sample, cpuUs: ((cpuNow() - began) * 1000) / Math.max(1, sample.done) };
  };
  for (let round = 0; round < ROUNDS; round += 1) {
    const raw = await measured('raw', round);
    const gateway = await measured('gateway', round);
    rounds.push({
      raw: raw.rate,
      gateway: gateway.rate,
      rawP99: raw.p99,
      gatewayP99: gateway.p99,
      rawCpuUs: raw.cpuUs,
      gatewayCpuUs: gateway.cpuUs,
    });
  }
  const figure: Figure = {
    ...describe,
    gateway: spread(rounds.map((round) => round.gateway)),
    raw: spread(rounds.map((round) => round.raw)),
    ratio: spread(
      rounds.map((round) => round.gateway / round.raw),
      3,
    ),
    p99Ms: {
      gateway: spread(rounds.map((round) => round.gatewayP99)),
      raw: spread(rounds.map((round) => round.rawP99)),
    },
    p99Ratio: spread(
      rounds.map((round) => round.gatewayP99 / Math.max(1, round.rawP99)),
      2,
    ),
    cpuUs: {
      gateway: spread(rounds.map((round) => round.gatewayCpuUs)),
      raw: spread(rounds.map((round) => round.rawCpuUs)),
    },
    rounds: rounds.map((round) => ({
      raw: Math.round(round.raw),
      gateway: Math.round(round.gateway),
      rawP99: round.rawP99,
      gatewayP99: round.gatewayP99,
      rawCpuUs: Math.round(round.rawCpuUs),
      gatewayCpuUs: Math.round(round.gatewayCpuUs),
    })),
    measuredAt: new Date().toISOString(),
  };
  printFigure(figure);
  return figure;
}

const range = (value: Spread, digits = 0) =>
  `${value.median.toFixed(digits)} (${value.min.toFixed(digits)}-${value.max.toFixed(digits)})`;

export function printFigure(figure: Figure): void {
  console.log(
    `${figure.scenario} | ${figure.mix} | ${figure.backend} | ${figure.connections} conn: ${figure.measured ?? 'gateway'} ${range(figure.gateway)} ${figure.unit}, ${figure.baseline} ${range(figure.raw)}, ratio ${range(figure.ratio, 2)}x; p99 ${figure.p99Ms.gateway.median} ms against ${figure.p99Ms.raw.median} ms (${range(figure.p99Ratio, 1)}x); CPU ${range(figure.cpuUs.gateway)} µs per ${figure.unit.split('/')[0]!.replace(/s$/, '')} against ${range(figure.cpuUs.raw)} µs`,
  );
}

/** autocannon in its own process over `requests` at `origin`: req/s and p99. Any failure fails the bench. */
export async function loadRun(
  title: string,
  origin: string,
  requests: readonly LoadRequest[],
  connections: number,
  requestIds = true,
): Promise<Sample> {
  const result = await inProcess<LoadResult>('bench/load-process.ts', {
    url: origin,
    connections,
    seconds: SECONDS,
    requests,
    requestIds,
  });
  if (result.failed > 0)
    throw new Error(
      `${title}: ${result.failed} failed requests of ${result.total} (status codes ${JSON.stringify(result.statusCodes)}, ${result.errors} errors, ${result.timeouts} timeouts)`,
    );
  return { rate: result.average, p99: result.p99, done: result.total };
}

/** Complete flows for SECONDS in the worker process. */
export async function flowRun(
  origin: string,
  items: readonly FlowItem[],
  concurrency: number,
): Promise<Sample> {
  const result = await inProcess<WorkerResult>('bench/flow-process.ts', {
    mode: 'flow',
    url: origin,
    seconds: SECONDS,
    concurrency,
    items,
  });
  return { rate: result.rate, p99: result.p99, done: result.done };
}

/** The prepared payments executed once each in the worker process. */
export async function executeRun(
  origin: string,
  items: readonly ExecuteItem[],
  concurrency: number,
): Promise<Sample> {
  const result = await inProcess<WorkerResult>('bench/flow-process.ts', {
    mode: 'execute',
    url: origin,
    concurrency,
    items,
  });
  return { rate: result.rate, p99: result.p99, done: result.done };
}
