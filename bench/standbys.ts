// npm run bench:standbys: account information (account list, transactions of 90 days) on one database
// server against a primary with a streaming standby that serves the reads (DATABASE_READ_URL), in the
// same run and in alternating rounds (one server, primary + standby, ...; BENCH_ROUNDS), each figure
// the median of the rounds with its range, the ratio (primary + standby) / (one server) per round. Both
// gateways run in this process on the same schema of a primary of the bench's own (built from Debian's
// PostgreSQL by test/helpers/pg-cluster.ts, asynchronous standby, removed at the end); only one is
// under load at a time, from autocannon in a process of its own. Both mixes of bench/data.ts. Printed,
// and written to bench/standbys.json.
//
// On one machine the standby takes its CPU from the same cores as the primary, the gateway and the load
// generator: the rates show the cost of routing reads to it more than the capacity a second machine
// adds. What a second machine would take off the primary is measured beside them: the CPU time of the
// primary's processes (and the standby's) per request answered, from /proc (docs/decisions.md,
// "Issue 42: reads on standbys").
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { clusterUnavailable, startCluster } from '../test/helpers/pg-cluster.ts';
import { CONNECTIONS, gateway, ROUNDS, SECONDS } from './common.ts';
import { accountListRequests, type Mix, prepareMixes, transactionRequests } from './data.ts';
import { alternate, type Figure, loadRun, type Spread, spread } from './figures.ts';
import type { LoadRequest } from './load-process.ts';

const RESULTS = 'bench/standbys.json';
const SCENARIOS: readonly [string, (mix: Mix) => LoadRequest[]][] = [
  ['account list', accountListRequests],
  ['transactions (90 days)', transactionRequests],
];

/** CPU ms per request answered: the primary alone, the primary beside its standby, the standby. */
interface CpuPerRequest {
  readonly oneServer: Spread;
  readonly primaryWithStandby: Spread;
  readonly standby: Spread;
}

const range = (value: Spread, digits = 0) =>
  `${value.median.toFixed(digits)} (${value.min.toFixed(digits)}-${value.max.toFixed(digits)})`;

/**
 * CPU time (ms) of one server's processes: its postmaster with the children that ended (cutime,
 * cstime), and the running children (backends, WAL sender or receiver, startup).
 */
function serverCpuMs(dataDir: string): number {
  const postmaster = readFileSync(join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]!;
  let ticks = 0;
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const used = Number(fields[11]) + Number(fields[12]);
      if (pid === postmaster) ticks += used + Number(fields[13]) + Number(fields[14]);
      else if (fields[1] === postmaster) ticks += used;
    } catch {
      // The process ended between the listing and the read.
    }
  }
  return ticks * 10;
}

async function main(): Promise<void> {
  const unavailable = clusterUnavailable();
  if (unavailable !== undefined) {
    console.log(`standbys bench skipped: ${unavailable}`);
    return;
  }
  console.log(
    `psd2-gateway standbys bench: ${SECONDS} s per run, ${ROUNDS} alternating rounds, ${CONNECTIONS} connections, node ${process.version}, ${cpus().length} cores`,
  );
  const cluster = await startCluster({ standbys: 1, synchronous: false });
  const standbyDir = cluster.standbys[0]!.dataDir;
  const figures: (Figure & { standbyShare: number; cpuMsPerRequest: CpuPerRequest })[] = [];
  try {
    const databaseUrl = `postgres://postgres@${cluster.primary.hostPort}/${cluster.database}`;
    const one = await gateway(databaseUrl);
    const two = await gateway(databaseUrl, { schemaName: one.schemaName!, readUrl: cluster.readUrl });
    try {
      const began = Date.now();
      const { hot, realistic } = await prepareMixes(one);
      console.log(`prepared in ${((Date.now() - began) / 1000).toFixed(0)} s`);
      // Warm-up (JIT, pools, the standby's buffers), not reported.
      for (const target of [one, two])
        await loadRun('warm-up', target.url, transactionRequests(realistic), CONNECTIONS);
      for (const mix of [hot, realistic]) {
        for (const [scenario, requests] of SCENARIOS) {
          const before = two.store.readCounts!();
          const cpu = { one: [] as number[], primary: [] as number[], standby: [] as number[] };
          const figure = await alternate(
            {
              scenario,
              mix: mix.name,
              backend: 'PostgreSQL',
              connections: CONNECTIONS,
              baseline: 'one server',
              measured: 'primary + standby',
              unit: 'req/s',
            },
            async (side) => {
              const primaryBefore = serverCpuMs(cluster.primary.dataDir);
              const standbyBefore = serverCpuMs(standbyDir);
              const target = side === 'raw' ? one : two;
              const sample = await loadRun(`${scenario} (${side})`, target.url, requests(mix), CONNECTIONS);
              const answered = Math.max(1, sample.rate * SECONDS);
              const primary = (serverCpuMs(cluster.primary.dataDir) - primaryBefore) / answered;
              if (side === 'raw') cpu.one.push(primary);
              else {
                cpu.primary.push(primary);
                cpu.standby.push((serverCpuMs(standbyDir) - standbyBefore) / answered);
              }
              return sample;
            },
          );
          // How many of the standby side's reads the standby served (the rest: the primary, while it was
          // behind or not yet sampled).
          const after = two.store.readCounts!();
          const standby = after.standby - before.standby;
          const share = standby / Math.max(1, standby + after.primary - before.primary);
          const cpuMsPerRequest = {
            oneServer: spread(cpu.one, 3),
            primaryWithStandby: spread(cpu.primary, 3),
            standby: spread(cpu.standby, 3),
          };
          console.log(
            `  reads served by the standby: ${(share * 100).toFixed(1)}%; primary CPU per request: one server ${range(cpuMsPerRequest.oneServer, 3)} ms, beside a standby ${range(cpuMsPerRequest.primaryWithStandby, 3)} ms (the standby ${range(cpuMsPerRequest.standby, 3)} ms)`,
          );
          figures.push({ ...figure, standbyShare: Number(share.toFixed(3)), cpuMsPerRequest });
        }
      }
    } finally {
      await two.close();
      await one.close();
    }
  } finally {
    await cluster.stop();
  }
  console.log(
    '\n| scenario | mix | one server req/s | primary + standby req/s | ratio | p99 ms (one / two) | standby share | primary CPU ms/request (one / two) | standby CPU ms/request |',
  );
  console.log('|---|---|---|---|---|---|---|---|---|');
  for (const figure of figures) {
    const cpu = figure.cpuMsPerRequest;
    console.log(
      `| ${figure.scenario} | ${figure.mix} | ${range(figure.raw)} | ${range(figure.gateway)} | ${range(figure.ratio, 2)}x | ${figure.p99Ms.raw.median} / ${figure.p99Ms.gateway.median} | ${(figure.standbyShare * 100).toFixed(0)}% | ${range(cpu.oneServer, 3)} / ${range(cpu.primaryWithStandby, 3)} | ${range(cpu.standby, 3)} |`,
    );
  }
  writeFileSync(RESULTS, `${JSON.stringify({ cores: cpus().length, seconds: SECONDS, figures }, null, 2)}\n`);
}

await main();
