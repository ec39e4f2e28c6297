// CPU time per operation, the figure that a shared, noisy machine disturbs least: throughput falls when
// another process takes a core, the CPU an operation needs hardly changes. Counted: this process (it
// serves both sides, the gateway and the raw baseline; the load generators run in processes of their
// own and are not counted) and, on PostgreSQL, the database server on this machine: its postmaster and
// every process the postmaster started (backends, WAL writer, checkpointer), from /proc. So another
// client of the same server counts too: measure on a server of the bench's own (BENCH_DATABASE_URL).
import { readdirSync, readFileSync } from 'node:fs';
import pg from 'pg';

/** CPU ms so far of what the bench measures; PostgreSQL's part once databaseCpu named the server. */
export type CpuClock = () => number;

// Linux's USER_HZ: /proc/<pid>/stat counts CPU in ticks of 10 ms.
const MS_PER_TICK = 10;

/**
 * A process's parent, its CPU ms (user + system) and that of its children that ended (and were waited
 * for), from /proc/<pid>/stat; undefined once it ended.
 */
function processStat(pid: string): { parent: number; cpuMs: number; endedChildrenMs: number } | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The fields after the command name, which may hold spaces: state, ppid, ..., utime (14th), stime,
    // cutime, cstime.
    const fields = stat
      .slice(stat.lastIndexOf(')') + 2)
      .split(' ')
      .map(Number);
    return {
      parent: fields[1]!,
      cpuMs: (fields[11]! + fields[12]!) * MS_PER_TICK,
      endedChildrenMs: (fields[13]! + fields[14]!) * MS_PER_TICK,
    };
  } catch {
    return undefined;
  }
}

/**
 * CPU ms of the postmaster `postmaster` and its children: those running, and those that ended (a
 * backend whose connection closed), which the postmaster waited for and so counts as its children's.
 */
export function serverCpuMs(postmaster: number): number {
  let total = processStat(String(postmaster))?.endedChildrenMs ?? 0;
  for (const [pid, cpuMs] of processesOf(postmaster)) if (pid !== String(postmaster)) total += cpuMs;
  return total;
}

/** The postmaster and its running children, by pid, with the CPU ms each has spent. */
function processesOf(postmaster: number): Map<string, number> {
  const found = new Map<string, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = processStat(entry);
    if (stat !== undefined && (Number(entry) === postmaster || stat.parent === postmaster))
      found.set(entry, stat.cpuMs);
  }
  return found;
}

/**
 * The postmaster of the server `databaseUrl` names, when it runs on this machine (a backend's parent);
 * undefined when its processes are not visible here.
 */
export async function postmasterOf(databaseUrl: string): Promise<number | undefined> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    return processStat(String(rows[0]!.pid))?.parent;
  } finally {
    await client.end();
  }
}

function ownCpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

/** This process's CPU ms, plus the database server's once it is known (databaseCpu). */
let clock: CpuClock = ownCpuMs;

/** Counts the server of `databaseUrl` from now on (undefined: this process only, as on PGlite). */
export async function databaseCpu(databaseUrl: string | undefined): Promise<string> {
  const postmaster = databaseUrl === undefined ? undefined : await postmasterOf(databaseUrl);
  clock = postmaster === undefined ? ownCpuMs : () => ownCpuMs() + serverCpuMs(postmaster);
  if (databaseUrl === undefined) return 'CPU: this process (PGlite runs in it)';
  return postmaster === undefined
    ? 'CPU: this process only (the database server runs elsewhere)'
    : `CPU: this process and the database server (postmaster ${postmaster} and its children)`;
}

/** CPU ms so far (cpuNow() after minus before: what a run took). */
export function cpuNow(): number {
  return clock();
}

/**
 * The CPU ms the server's client backends (not its checkpointer, WAL writer or autovacuum, whose turns
 * land in one round or another by chance) spent from `since`'s call to the answer's: each backend
 * running at the end, less what it had spent at the start (a backend opened meanwhile counts whole).
 */
export function backendsSince(postmaster: number): () => number {
  const backends = () => new Map([...processesOf(postmaster)].filter(([pid]) => isClientBackend(pid)));
  const start = backends();
  return () => {
    let spent = 0;
    for (const [pid, cpuMs] of backends()) spent += cpuMs - (start.get(pid) ?? 0);
    return spent;
  };
}

/** A client backend's title names its client, `host(port)` or `[local]`; the server's own processes' do not. */
function isClientBackend(pid: string): boolean {
  try {
    return /\(\d+\)|\[local\]/.test(readFileSync(`/proc/${pid}/cmdline`, 'utf8'));
  } catch {
    return false;
  }
}
