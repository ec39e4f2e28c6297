// What the audit trail costs (issue 39: under 10% on initiation and the five-step flow), measured
// against the same commit without it. Two checkouts of HEAD in a scratch directory, the second with
// bench/trail-off.patch applied (no record written: the CTEs' inserts, the transition rule's insert,
// recordEvents; the sealer then finds nothing to seal); each runs a sandbox gateway
// (bench/trail-process.ts). Their rounds alternate A B A B ..., each with its load generator in a process
// of its own, and each pair gives the trail's cost as with / without of the CPU per operation (this
// machine's speed drifts by ±15% within a minute, the pair's two rounds are seconds apart) and of the
// rate. Reported: the median of the pairs and their quartiles, and the change of all rounds' CPU per
// operation, per scenario, mix and database.
//
//   BENCH_DATABASE_URL  a PostgreSQL of the bench's own (also measured: PGlite, in each gateway's process)
//   BENCH_PAIRS         pairs per figure (10), BENCH_SECONDS a round's length (3)
//   BENCH_ONLY     e.g. `five-step flow` or `initiation`; BENCH_DATABASES `PostgreSQL` or `PGlite`
import { execFileSync, fork } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { TrailRound, TrailSample } from './trail-process.ts';

const PAIRS = Number(process.env.BENCH_PAIRS ?? 10);
const ONLY = process.env.BENCH_ONLY ?? '';
const root = resolve(import.meta.dirname, '..');
const scratch = mkdtempSync(join(tmpdir(), 'psd2-trail-'));
const git = (...args: string[]) => execFileSync('git', ['-C', root, ...args], { encoding: 'utf8' }).trim();

interface Side {
  start(): Promise<void>;
  stop(): Promise<void>;
  measure(round: TrailRound): Promise<TrailSample>;
}

/** A checkout of HEAD (with the patch, or not) and its gateway process, once ready. */
async function side(name: string, patch: boolean, databaseUrl: string | undefined): Promise<Side> {
  const dir = join(scratch, name);
  git('worktree', 'add', '--detach', dir, 'HEAD');
  symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'));
  if (patch) execFileSync('git', ['-C', dir, 'apply', join(root, 'bench/trail-off.patch')]);
  const child = fork(join(dir, 'bench/trail-process.ts'), [], {
    cwd: dir,
    execArgv: ['--import', 'tsx'],
    env: { ...process.env, BENCH_DATABASE_URL: databaseUrl ?? '' },
  });
  // A gateway that stops before it is told to fails the bench, rather than leave a round unanswered.
  let stopping = false;
  const died = new Promise<never>((_, fail) =>
    child.once('exit', (code) => {
      if (!stopping) fail(new Error(`${name}: the gateway stopped (${code})`));
    }),
  );
  died.catch(() => {});
  await Promise.race([new Promise((ready) => child.once('message', ready)), died]);
  const reply = (message: 'start' | TrailRound) =>
    Promise.race([
      new Promise<unknown>((answer) => {
        child.once('message', answer);
        child.send(message);
      }),
      died,
    ]);
  return {
    start: async () => {
      await reply('start');
    },
    stop: () =>
      new Promise((stopped) => {
        stopping = true;
        child.once('exit', () => stopped());
        child.send('stop');
      }),
    measure: async (round) => (await reply(round)) as TrailSample,
  };
}

function quantile(sorted: readonly number[], q: number): number {
  const at = (sorted.length - 1) * q;
  const low = Math.floor(at);
  return sorted[low]! + (sorted[Math.ceil(at)]! - sorted[low]!) * (at - low);
}

/** Median and quartiles, in %, of the pairs' changes (with the trail against without). */
function changes(values: readonly number[]): { median: number; q1: number; q3: number } {
  const sorted = [...values].sort((a, b) => a - b);
  const percent = (value: number) => Number((value * 100).toFixed(1));
  return {
    median: percent(quantile(sorted, 0.5)),
    q1: percent(quantile(sorted, 0.25)),
    q3: percent(quantile(sorted, 0.75)),
  };
}

/** All of a side's rounds' CPU over all their operations. */
const perOperation = (samples: readonly TrailSample[]) =>
  samples.reduce((cpu, sample) => cpu + sample.cpuUs * sample.operations, 0) /
  samples.reduce((operations, sample) => operations + sample.operations, 0);

/** All of a side's vacuum turns over all its rounds' operations. */
const vacuumPerOperation = (samples: readonly TrailSample[]) =>
  samples.reduce((cpu, sample) => cpu + sample.vacuumUs * sample.operations, 0) /
  samples.reduce((operations, sample) => operations + sample.operations, 0);

/** CPU per operation, and the database's part of it on PostgreSQL; PGlite's vacuum apart. */
const us = (sample: TrailSample) =>
  `${Math.round(sample.cpuUs)} µs${sample.databaseCpuUs > 0 ? ` (database ${Math.round(sample.databaseCpuUs)})` : ''}` +
  `${sample.vacuumUs > 0 ? ` (+ vacuum ${sample.vacuumUs.toFixed(1)})` : ''}` +
  ` ${sample.statements.toFixed(2)} st/op x${sample.batch.toFixed(1)}`;
const signed = (value: number) => (value >= 0 ? `+${value}` : `${value}`);
const figures: object[] = [];
const cleanup = () => {
  for (const name of ['with', 'without']) {
    try {
      execFileSync('git', ['-C', root, 'worktree', 'remove', '--force', join(scratch, name)], {
        stdio: 'ignore',
      });
    } catch {
      // Removed already, after its database's figures.
    }
  }
  rmSync(scratch, { recursive: true, force: true });
};
process.on('exit', cleanup);
// Interrupted: the checkouts are removed all the same.
process.on('SIGINT', () => process.exit(130));

const databases: [string, string | undefined][] = [['PGlite', undefined]];
if (process.env.BENCH_DATABASE_URL) databases.unshift(['PostgreSQL', process.env.BENCH_DATABASE_URL]);
const ONLY_DATABASES = (process.env.BENCH_DATABASES ?? '').split(',').filter((name) => name !== '');
const commit = git('rev-parse', '--short', 'HEAD');
for (const [backend, databaseUrl] of databases) {
  if (ONLY_DATABASES.length > 0 && !ONLY_DATABASES.includes(backend)) continue;
  const withTrail = await side('with', false, databaseUrl);
  const without = await side('without', true, databaseUrl);
  await Promise.all([withTrail.start(), without.start()]);
  for (const scenario of ['five-step flow', 'initiation'] as const) {
    if (ONLY !== '' && !ONLY.split(',').includes(scenario)) continue;
    for (const mix of ['realistic', 'hot'] as const) {
      const round = { scenario, mix };
      const cpu: number[] = [];
      const rate: number[] = [];
      const sides: { with: TrailSample[]; without: TrailSample[] } = { with: [], without: [] };
      // A pair not counted: each side's first round of a scenario and mix found its data where the other
      // side's rounds had left the caches (pair 1 measured 20-30% over the rest, on the side that went first).
      await withTrail.measure(round);
      await without.measure(round);
      for (let pair = 0; pair < PAIRS; pair += 1) {
        // A B A B: each side's CPU counts from the end of its previous round (bench/trail-process.ts), so
        // every round's count spans one round of the other side and one of its own, the same for both.
        // (A B B A, which let neither side run first, gave the second of two rounds in a row a count of a
        // different span: pairs swung by as much as the trail's cost, one way and then the other.)
        const a = await withTrail.measure(round);
        const b = await without.measure(round);
        console.log(
          `  pair ${pair + 1}: with ${us(a)}, ${Math.round(a.rate)}/s; without ${us(b)}, ${Math.round(b.rate)}/s`,
        );
        cpu.push(a.cpuUs / b.cpuUs - 1);
        sides.with.push(a);
        sides.without.push(b);
        rate.push(a.rate / b.rate - 1);
      }
      const figure = {
        backend,
        scenario,
        mix,
        pairs: PAIRS,
        cpuCost: changes(cpu),
        rateChange: changes(rate),
        // All of each side's CPU over all its rounds, per operation: each side's count is continuous
        // (from the end of its previous round), so nothing is counted twice or left out.
        cpuOverall: Number(((perOperation(sides.with) / perOperation(sides.without) - 1) * 100).toFixed(1)),
        // PGlite's vacuum turns after the rounds (not in the figures above), µs per operation of each side.
        vacuumUs: {
          with: Number(vacuumPerOperation(sides.with).toFixed(2)),
          without: Number(vacuumPerOperation(sides.without).toFixed(2)),
        },
        // Each pair's CPU change in %, so that runs can be pooled.
        cpuPairs: cpu.map((change) => Number((change * 100).toFixed(1))),
      };
      figures.push(figure);
      console.log(
        `${backend} ${scenario} ${mix}: CPU per operation ${signed(figure.cpuCost.median)}% (quartiles ${figure.cpuCost.q1}..${figure.cpuCost.q3}; all rounds ${signed(figure.cpuOverall)}%), rate ${signed(figure.rateChange.median)}% (quartiles ${figure.rateChange.q1}..${figure.rateChange.q3})`,
      );
    }
  }
  await Promise.all([withTrail.stop(), without.stop()]);
  git('worktree', 'remove', '--force', join(scratch, 'with'));
  git('worktree', 'remove', '--force', join(scratch, 'without'));
}
writeFileSync(
  join(root, 'bench/trail-results.json'),
  `${JSON.stringify({ commit, measuredAt: new Date().toISOString(), figures }, null, 2)}\n`,
);
