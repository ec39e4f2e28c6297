// npm run bench, part "start": how fast the sandbox starts and how much memory it holds, as `npm start`
// runs it (the built bundle, the embedded database from the snapshot), next to a raw node:http
// process started the same way, in alternating rounds: the median and range of several starts to the
// first 200 on /readyz (the database answers), the CPU time the process had used by then (Linux: what a
// busy machine does not stretch, unlike the time to ready), and the resident memory after a second
// idle; the machine's load average is told beside them. Then the gateway's resident memory under load
// (initiations from autocannon in a process of its own), sampled every 100 ms.
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { promisify } from 'node:util';
import { domestic } from '../test/helpers/payments.ts';
import { freePort } from '../test/helpers/serve-process.ts';
import { startArguments } from './memory.ts';

const STARTS = Number(process.env.BENCH_STARTS ?? 5);
const LOAD_SECONDS = Number(process.env.BENCH_LOAD_SECONDS ?? 10);
const CLIENT_ID = '5ca1ab1e5ca1ab1e5ca1ab1e5ca1ab1e';
/**
 * The gateway as `npm start` runs it (the flags of package.json's start script, read there so that the
 * two cannot differ; BENCH_MEMORY_NODE_FLAGS adds to them), started the way the raw baseline is: node
 * and a script.
 */
const GATEWAY = startArguments();
/** `npm start` itself, through npm's CLI: npm's own start-up is part of what a user waits for. */
const NPM_CLI = process.env.npm_execpath;
const RAW = [
  '-e',
  "require('node:http').createServer((q, s) => s.writeHead(200, {'content-type': 'application/json'}).end('{\"status\":\"ok\"}')).listen(Number(process.env.PORT), '127.0.0.1')",
];

export interface StartRow {
  readonly target: string;
  readonly readyMs: readonly number[];
  /** CPU time (user and system) of the serving process when it was ready, ms; empty off Linux. */
  readonly cpuMs: readonly number[];
  readonly residentMb: readonly number[];
}

export interface StartFigures {
  readonly rows: readonly StartRow[];
  /** The machine's load average over a minute, before and after the starts: a quiet machine's is near 0. */
  readonly loadAverage: { readonly before: number; readonly after: number };
  /** The gateway's resident memory under load: idle before, and the peak during the run. */
  readonly load: { readonly idleMb: number; readonly peakMb: number; readonly requestsPerSecond: number };
}

/** Resident memory of a process in MB (Linux /proc; elsewhere ps). */
async function residentMb(pid: number): Promise<number> {
  const status = `/proc/${pid}/status`;
  if (existsSync(status)) {
    const kb = Number(/VmRSS:\s+(\d+)/.exec(readFileSync(status, 'utf8'))?.[1] ?? 0);
    return Math.round(kb / 1024);
  }
  const { stdout } = await promisify(execFile)('ps', ['-o', 'rss=', '-p', String(pid)]);
  return Math.round(Number(stdout.trim()) / 1024);
}

/** CPU time a process has used, ms (Linux /proc; undefined elsewhere). */
function cpuMs(pid: number): number | undefined {
  const stat = `/proc/${pid}/stat`;
  if (!existsSync(stat)) return undefined;
  // Fields after the command's name: utime and stime are the 12th and 13th, in clock ticks (100 a second).
  const fields = readFileSync(stat, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** The process that serves: the spawned one, or under npm the node process it started for the script. */
function server(child: ChildProcess): number {
  const children = (pid: number): number[] => {
    const file = `/proc/${pid}/task/${pid}/children`;
    return existsSync(file) ? readFileSync(file, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number) : [];
  };
  const queue = [child.pid!];
  while (queue.length > 0) {
    const pid = queue.shift()!;
    const cmdline = existsSync(`/proc/${pid}/cmdline`) ? readFileSync(`/proc/${pid}/cmdline`, 'utf8') : '';
    const [program, ...args] = cmdline.split('\0');
    if (
      program?.endsWith('node') &&
      args.some((arg) => arg.includes('psd2-gateway.mjs') || arg.includes('node:http'))
    )
      return pid;
    queue.push(...children(pid));
  }
  return child.pid!;
}

async function started(
  args: readonly string[],
  port: number,
): Promise<{ child: ChildProcess; ms: number; cpuMs: number | undefined }> {
  const begin = performance.now();
  const child = spawn(process.execPath, args, {
    env: {
      ...process.env,
      PORT: String(port),
      LOG_LEVEL: 'warn',
      SANDBOX_CLIENT_ID: CLIENT_ID,
      // The load is one app's, far over its rate limits.
      RATE_LIMIT_API_PER_APP: '0',
      RATE_LIMIT_API_PER_ADDRESS: '0',
      RATE_LIMIT_AUTH_PER_APP: '0',
      RATE_LIMIT_AUTH_PER_ADDRESS: '0',
    },
    stdio: 'ignore',
  });
  for (;;) {
    if (performance.now() - begin > 30_000) throw new Error(`${args.join(' ')} did not start in 30 s`);
    try {
      const answer = await fetch(`http://127.0.0.1:${port}/readyz`);
      if (answer.status === 200) {
        const ms = performance.now() - begin;
        return { child, ms, cpuMs: cpuMs(server(child)) };
      }
    } catch {
      // Not listening yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

async function stop(child: ChildProcess): Promise<void> {
  const exited = new Promise((resolve) => child.once('exit', resolve));
  process.kill(server(child), 'SIGTERM');
  await exited;
}

async function startRow(target: string, args: readonly string[]): Promise<StartRow> {
  const readyMs: number[] = [];
  const cpu: number[] = [];
  const resident: number[] = [];
  for (let round = 0; round < STARTS; round += 1) {
    const { child, ms, cpuMs } = await started(args, await freePort());
    readyMs.push(Math.round(ms));
    if (cpuMs !== undefined) cpu.push(cpuMs);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    resident.push(await residentMb(server(child)));
    await stop(child);
  }
  return { target, readyMs, cpuMs: cpu, residentMb: resident };
}

async function underLoad(): Promise<StartFigures['load']> {
  const port = await freePort();
  const { child } = await started(GATEWAY, port);
  try {
    const base = `http://127.0.0.1:${port}`;
    const tokenAnswer = await fetch(`${base}/oauth2/token/1.0`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `grant_type=client_credentials&scope=PIS&client_id=${CLIENT_ID}`,
    });
    const { access_token: token } = (await tokenAnswer.json()) as { access_token: string };
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const pid = server(child);
    const idleMb = await residentMb(pid);
    let peakMb = idleMb;
    const sampler = setInterval(async () => {
      peakMb = Math.max(peakMb, await residentMb(pid));
    }, 100);
    const options = {
      url: `${base}/psd2/se/v2/payments/private/single/handelsbanken-domestic-credit-transfer`,
      connections: 16,
      seconds: LOAD_SECONDS,
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-gateway-client-id': CLIENT_ID,
        'tpp-transaction-id': 'bench',
        authorization: `Bearer ${token}`,
      },
      body: JSON.stringify(domestic()),
    };
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', 'bench/load-process.ts', JSON.stringify(options)],
      { maxBuffer: 1 << 20 },
    );
    clearInterval(sampler);
    const result = JSON.parse(stdout) as { average: number; failed: number; total: number };
    if (result.failed > 0)
      throw new Error(`start bench: ${result.failed} of ${result.total} requests failed`);
    return { idleMb, peakMb, requestsPerSecond: Math.round(result.average) };
  } finally {
    await stop(child);
  }
}

export async function measureStart(): Promise<StartFigures> {
  if (!existsSync('dist/cli.js')) throw new Error('start bench: build first (npm run build)');
  // Alternate the two so that the machine's moods fall on both.
  const targets: [string, readonly string[]][] = [
    ['raw node:http', RAW],
    ['sandbox (node bin/psd2-gateway.mjs)', GATEWAY],
    ...(NPM_CLI === undefined
      ? []
      : [['sandbox (npm start)', [NPM_CLI, 'start', '--silent']] as [string, string[]]]),
  ];
  const before = loadavg()[0]!;
  const rounds: StartRow[][] = targets.map(() => []);
  for (let round = 0; round < 2; round += 1) {
    for (const [index, [target, args]] of targets.entries())
      rounds[index]!.push(await startRow(target, args));
  }
  const rows = rounds.map((runs) => ({
    target: runs[0]!.target,
    readyMs: runs.flatMap((row) => row.readyMs),
    cpuMs: runs.flatMap((row) => row.cpuMs),
    residentMb: runs.flatMap((row) => row.residentMb),
  }));
  const loadAverage = { before: round2(before), after: round2(loadavg()[0]!) };
  return { rows, loadAverage, load: await underLoad() };
}

const round2 = (value: number) => Math.round(value * 100) / 100;
const median = (values: readonly number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
};
const spread = (values: readonly number[]) => `${Math.min(...values)}-${Math.max(...values)}`;

export function printStart(figures: StartFigures): void {
  const [raw] = figures.rows;
  const { before, after } = figures.loadAverage;
  console.log(
    `\nStart to the first 200 on /readyz, CPU time used by then, and resident memory after 1 s idle (${raw!.readyMs.length} starts each, alternating; median and range; load average ${before} before, ${after} after, on ${cpus().length} cores):\n`,
  );
  console.log(
    '| target | ready ms | CPU ms at ready | resident MB | ready, ratio to raw | CPU, ratio to raw | resident, ratio to raw |',
  );
  console.log('|---|---|---|---|---|---|---|');
  const cell = (values: readonly number[]) =>
    values.length === 0 ? '-' : `${median(values)} (${spread(values)})`;
  const ratio = (values: readonly number[], of: readonly number[]) =>
    values.length === 0 || of.length === 0 ? '-' : `${(median(values) / median(of)).toFixed(1)}x`;
  for (const row of figures.rows) {
    console.log(
      `| ${row.target} | ${cell(row.readyMs)} | ${cell(row.cpuMs)} | ${cell(row.residentMb)} | ${ratio(row.readyMs, raw!.readyMs)} | ${ratio(row.cpuMs, raw!.cpuMs)} | ${ratio(row.residentMb, raw!.residentMb)} |`,
    );
  }
  const { idleMb, peakMb, requestsPerSecond } = figures.load;
  console.log(
    `\nThe sandbox under load (initiations, 16 connections, ${LOAD_SECONDS} s, ${requestsPerSecond} req/s): resident ${idleMb} MB idle, ${peakMb} MB at the peak.`,
  );
}
