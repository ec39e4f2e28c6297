// One side of bench/trail.ts: a sandbox gateway of the checkout it runs in (the commit, or the commit
// with bench/trail-off.patch applied), which measures one round each time its parent asks: the
// scenario's load for SECONDS in a process of its own, then a pause for the sealer's turn over the
// round's last records, so that each side pays its own sealing. Answers the CPU per operation of this
// process and of the database's client backends, and the rate. On PGlite, a vacuum turn follows each
// round, counted apart (`vacuumUs`), as PostgreSQL's autovacuum is left out of the count.
import { vacuumTurn } from '../src/store/database/pglite-vacuum.ts';
import { gateway } from './common.ts';
import { backendsSince, postmasterOf } from './cpu.ts';
import { flowItems, initiationRequests, type Mix, prepareMixes } from './data.ts';
import { flowRun, loadRun, type Sample } from './figures.ts';

export interface TrailRound {
  readonly scenario: 'initiation' | 'five-step flow';
  readonly mix: 'hot' | 'realistic';
}

export interface TrailSample {
  readonly cpuUs: number;
  /** Of which the database's client backends (none on PGlite: it runs in the gateway's process). */
  readonly databaseCpuUs: number;
  /** PGlite: the vacuum turn after the round, per operation, not in `cpuUs`. */
  readonly vacuumUs: number;
  readonly rate: number;
  readonly operations: number;
  /** Statements the coalescers sent per operation, and the items each carried (the gateway's /metrics). */
  readonly statements: number;
  readonly batch: number;
}

const databaseUrl = process.env.BENCH_DATABASE_URL || undefined;
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
/** The sealer seals every second: its turn over a round's last records falls inside the round's window. */
const SEAL_PAUSE_MS = 1_500;

// PGlite as the sandbox runs it: its files in the RAM file system (bench/common.ts, `pgliteFiles`). Its
// vacuum turns (the store's own: one a minute, a second or two of CPU under this load, in whichever round
// it fell, a spike of +40-70% in one round of six or seven) run after each round instead, and are counted
// apart: the figure leaves them out as it leaves out PostgreSQL's autovacuum (docs/decisions.md "Issue 39:
// the trail bench counts PGlite's vacuum apart").
const target = await gateway(databaseUrl, undefined, { pgliteFiles: true, pgliteVacuum: false });
const mixes = await prepareMixes(target);
const postmaster = databaseUrl === undefined ? undefined : await postmasterOf(databaseUrl);

function run(round: TrailRound, mix: Mix): Promise<Sample> {
  return round.scenario === 'initiation'
    ? loadRun(round.scenario, target.url, initiationRequests(mix), CONNECTIONS)
    : flowRun(target.url, flowItems(mix), CONNECTIONS);
}

/**
 * This process's CPU counts from the end of its previous round, not from this round's start: work a round
 * leaves behind (a collection of its garbage, a late seal, its idle sealer's turns) runs while the other
 * side's round does, and counted from a round's start it would count or not by which side ran before.
 */
let since = process.cpuUsage();

/** The coalescers' statements and the items they carried so far, summed over statements. */
async function batches(): Promise<{ statements: number; items: number }> {
  const text = await (await fetch(`${target.url}/metrics`)).text();
  const total = (suffix: string) =>
    [...text.matchAll(new RegExp(`^psd2_db_batch_size_${suffix}\\{[^}]*\\} (\\S+)$`, 'gm'))].reduce(
      (sum, match) => sum + Number(match[1]),
      0,
    );
  return { statements: total('count'), items: total('sum') };
}

async function measure(round: TrailRound): Promise<TrailSample> {
  const mix = mixes[round.mix];
  const database = postmaster === undefined ? () => 0 : backendsSince(postmaster);
  const before = await batches();
  const sample = await run(round, mix);
  const after = await batches();
  await new Promise((resolve) => setTimeout(resolve, SEAL_PAUSE_MS));
  const spent = process.cpuUsage(since);
  const vacuumStart = process.cpuUsage();
  if (databaseUrl === undefined) await vacuumTurn(target.store.db);
  const vacuum = process.cpuUsage(vacuumStart);
  since = process.cpuUsage();
  const databaseMs = database();
  const cpuMs = (spent.user + spent.system) / 1000 + databaseMs;
  return {
    cpuUs: (cpuMs * 1000) / sample.done,
    databaseCpuUs: (databaseMs * 1000) / sample.done,
    vacuumUs: databaseUrl === undefined ? (vacuum.user + vacuum.system) / sample.done : 0,
    rate: sample.rate,
    operations: sample.done,
    statements: (after.statements - before.statements) / sample.done,
    batch: (after.items - before.items) / Math.max(1, after.statements - before.statements),
  };
}

process.on('message', (message: TrailRound | 'stop' | 'start') => {
  if (message === 'stop') {
    void target.close().then(() => process.exit(0));
    return;
  }
  // Both sides are ready: the counts start now. (Counted from this side's own warm-up, its first round
  // also held its idle turns while the other side warmed up, a minute of them: 2-3x the others' CPU.)
  if (message === 'start') {
    since = process.cpuUsage();
    process.send!('started');
    return;
  }
  // A round that fails ends the process: the parent fails the bench with it.
  measure(message).then(
    (sample) => process.send!(sample),
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
});
// A warm-up (JIT, pools, caches) of each scenario, not measured.
for (const mix of ['hot', 'realistic'] as const) {
  await run({ scenario: 'initiation', mix }, mixes[mix]);
  await run({ scenario: 'five-step flow', mix }, mixes[mix]);
}
since = process.cpuUsage();
process.send!('ready');
