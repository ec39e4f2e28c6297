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
// generator: what it can show here is the cost of routing reads to it, not the capacity a second
// machine adds (docs/decisions.md, "Issue 42: reads on standbys").
import { writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { clusterUnavailable, startCluster } from '../test/helpers/pg-cluster.ts';
import { CONNECTIONS, gateway, ROUNDS, SECONDS } from './common.ts';
import { accountListRequests, type Mix, prepareMixes, transactionRequests } from './data.ts';
import { alternate, type Figure, loadRun } from './figures.ts';
import type { LoadRequest } from './load-process.ts';

const RESULTS = 'bench/standbys.json';
const SCENARIOS: readonly [string, (mix: Mix) => LoadRequest[]][] = [
  ['account list', accountListRequests],
  ['transactions (90 days)', transactionRequests],
];

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
  const figures: (Figure & { standbyShare: number })[] = [];
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
            (side) =>
              loadRun(`${scenario} (${side})`, (side === 'raw' ? one : two).url, requests(mix), CONNECTIONS),
          );
          // How many of the standby side's reads the standby served (the rest: the primary, while it was
          // behind or not yet sampled).
          const after = two.store.readCounts!();
          const standby = after.standby - before.standby;
          const share = standby / Math.max(1, standby + after.primary - before.primary);
          console.log(`  reads served by the standby: ${(share * 100).toFixed(1)}%`);
          figures.push({ ...figure, standbyShare: Number(share.toFixed(3)) });
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
    '\n| scenario | mix | one server req/s | primary + standby req/s | ratio | p99 ms (one / two) | standby share |',
  );
  console.log('|---|---|---|---|---|---|---|');
  const range = (s: { median: number; min: number; max: number }, digits = 0) =>
    `${s.median.toFixed(digits)} (${s.min.toFixed(digits)}-${s.max.toFixed(digits)})`;
  for (const figure of figures)
    console.log(
      `| ${figure.scenario} | ${figure.mix} | ${range(figure.raw)} | ${range(figure.gateway)} | ${range(figure.ratio, 2)}x | ${figure.p99Ms.raw.median} / ${figure.p99Ms.gateway.median} | ${(figure.standbyShare * 100).toFixed(0)}% |`,
    );
  writeFileSync(RESULTS, `${JSON.stringify({ cores: cpus().length, seconds: SECONDS, figures }, null, 2)}\n`);
}

await main();
