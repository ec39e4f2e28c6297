// PostgreSQL servers of a test's own, built from Debian's PostgreSQL on this machine: a primary and
// streaming standbys (initdb, pg_basebackup), synchronous or asynchronous, each on a port and in a
// folder of its own, run as the `postgres` user, removed at the end. What the failover and read
// scale-out tests kill, promote and measure; never the shared server at 5432.
import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { appendFile, chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import pg from 'pg';

const run = promisify(execFile);

/** Debian's PostgreSQL server programs (the newest installed major), or undefined. */
function serverBin(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const majors = readdirSync(root)
    .filter((name) => existsSync(join(root, name, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  return majors[0] === undefined ? undefined : join(root, majors[0], 'bin');
}

/**
 * Why servers of a test's own cannot be built here (no server programs, not root to run them as
 * `postgres`), or undefined when they can.
 */
export function clusterUnavailable(): string | undefined {
  if (serverBin() === undefined) return "Debian's PostgreSQL server programs (initdb) are not installed";
  if (process.getuid?.() !== 0) return 'the tests are not run as root (the servers run as the postgres user)';
  return undefined;
}

export interface PgServer {
  readonly name: string;
  readonly port: number;
  readonly dataDir: string;
  /** host:port, for a DATABASE_URL's host list. */
  readonly hostPort: string;
  /** A URL of this server alone, database `postgres`. */
  readonly url: string;
  /** Rows of one query on a connection of its own (3 s to connect). */
  query<T = Record<string, unknown>>(text: string, values?: unknown[]): Promise<T[]>;
  /** The machine goes: SIGKILL to the postmaster and every backend, nothing flushed or closed. */
  kill(): Promise<void>;
  /** `pg_ctl promote` (a standby becomes a primary) and waits until it takes writes. */
  promote(): Promise<void>;
  /** `pg_ctl start` again after kill() (crash recovery first) and waits until it takes connections. */
  start(): Promise<void>;
  running(): boolean;
}

export interface PgCluster {
  readonly primary: PgServer;
  readonly standbys: readonly PgServer[];
  /** Database name the gateway is given (created on the primary). */
  readonly database: string;
  /** libpq's multi-host form: every server, `target_session_attrs=read-write`. */
  readonly url: string;
  /** The standbys alone, libpq's multi-host form (DATABASE_READ_URL). */
  readonly readUrl: string;
  /** Stops every server and removes their folders. */
  stop(): Promise<void>;
}

export interface ClusterOptions {
  /** How many standbys stream from the primary (default 1). */
  readonly standbys?: number;
  /** The primary waits for the first standby's flush before a commit returns (default true). */
  readonly synchronous?: boolean;
  /** Extra postgresql.conf lines for every server. */
  readonly settings?: readonly string[];
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

async function asPostgres(bin: string, program: string, args: readonly string[]): Promise<string> {
  const { stdout } = await run('runuser', ['-u', 'postgres', '--', join(bin, program), ...args], {
    timeout: 120_000,
  });
  return stdout;
}

export async function queryOn<T>(url: string, text: string, values: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3_000 });
  client.on('error', () => {});
  await client.connect();
  try {
    return (await client.query(text, values)).rows as T[];
  } finally {
    await client.end().catch(() => {});
  }
}

/** The process ids of a server: its postmaster (postmaster.pid's first line) and the postmaster's children. */
async function serverPids(dataDir: string): Promise<number[]> {
  let postmaster: number;
  try {
    postmaster = Number(readFileSync(join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  } catch {
    return [];
  }
  if (!Number.isInteger(postmaster) || postmaster <= 0) return [];
  const children = await run('pgrep', ['-P', String(postmaster)]).then(
    ({ stdout }) => stdout.split('\n').filter(Boolean).map(Number),
    () => [] as number[],
  );
  return [postmaster, ...children];
}

function serverOf(bin: string, name: string, port: number, dataDir: string): PgServer {
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  let alive = true;
  const server: PgServer = {
    name,
    port,
    dataDir,
    hostPort: `127.0.0.1:${port}`,
    url,
    query: (text, values) => queryOn(url, text, values),
    running: () => alive,
    async kill() {
      const pids = await serverPids(dataDir);
      for (const pid of pids) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // already gone
        }
      }
      alive = false;
    },
    async start() {
      await start(bin, dataDir);
      alive = true;
    },
    async promote() {
      await asPostgres(bin, 'pg_ctl', ['promote', '-w', '-t', '60', '-D', dataDir]);
      for (let tries = 0; tries < 300; tries++) {
        const [row] = await server
          .query<{ recovery: boolean }>('SELECT pg_is_in_recovery() AS recovery')
          .catch(() => [{ recovery: true }]);
        if (row?.recovery === false) return;
        await sleep(100);
      }
      throw new Error(`${name} did not leave recovery after pg_ctl promote`);
    },
  };
  return server;
}

/** pg_ctl start, waiting for the server; its stdio is not a pipe (the postmaster would hold it open). */
async function start(bin: string, dataDir: string): Promise<void> {
  const child = spawn(
    'runuser',
    [
      '-u',
      'postgres',
      '--',
      join(bin, 'pg_ctl'),
      'start',
      '-w',
      '-t',
      '60',
      '-D',
      dataDir,
      '-l',
      join(dataDir, 'server.log'),
    ],
    { stdio: 'ignore' },
  );
  const [code] = await once(child, 'exit');
  if (code !== 0)
    throw new Error(`pg_ctl start ${dataDir} exited with ${code}: see ${join(dataDir, 'server.log')}`);
}

/**
 * A primary and its standbys, streaming and (when synchronous) with the first standby as the
 * synchronous one, ready: every standby streaming, the database created and replayed on each.
 */
export async function startCluster(options: ClusterOptions = {}): Promise<PgCluster> {
  const bin = serverBin();
  const why = clusterUnavailable();
  if (bin === undefined || why !== undefined) throw new Error(`cannot build PostgreSQL servers: ${why}`);
  const standbyCount = options.standbys ?? 1;
  const synchronous = options.synchronous ?? true;
  const root = await mkdtemp(join(tmpdir(), 'pg-cluster-'));
  await chmod(root, 0o777);
  const servers: PgServer[] = [];
  const stopAll = async () => {
    for (const server of servers) await server.kill();
    await rm(root, { recursive: true, force: true });
  };
  try {
    const primaryDir = join(root, 'primary');
    const primaryPort = await freePort();
    await asPostgres(bin, 'initdb', [
      '-D',
      primaryDir,
      '-U',
      'postgres',
      '--auth=trust',
      '-E',
      'UTF8',
      '--no-sync',
    ]);
    const common = [
      "listen_addresses = '127.0.0.1'",
      'max_connections = 200',
      'wal_level = replica',
      'max_wal_senders = 10',
      'hot_standby = on',
      'hot_standby_feedback = on',
      'wal_keep_size = 256MB',
      'shared_buffers = 32MB',
      'fsync = off',
      ...(options.settings ?? []),
    ];
    await appendFile(
      join(primaryDir, 'postgresql.conf'),
      [
        ...common,
        `port = ${primaryPort}`,
        `unix_socket_directories = '${primaryDir}'`,
        'synchronous_commit = on',
        '',
      ].join('\n'),
    );
    await appendFile(join(primaryDir, 'pg_hba.conf'), 'host replication all 127.0.0.1/32 trust\n');
    await start(bin, primaryDir);
    const primary = serverOf(bin, 'primary', primaryPort, primaryDir);
    servers.push(primary);
    const database = 'bank';
    await primary.query(`CREATE DATABASE ${database}`);
    for (let index = 1; index <= standbyCount; index++) {
      const name = `standby${index}`;
      const dir = join(root, name);
      const port = await freePort();
      await asPostgres(bin, 'pg_basebackup', [
        '-h',
        '127.0.0.1',
        '-p',
        String(primaryPort),
        '-U',
        'postgres',
        '-D',
        dir,
        '-X',
        'stream',
        '-R',
        '--checkpoint=fast',
        '--no-sync',
      ]);
      // -R wrote primary_conninfo and standby.signal; the standby names itself so that the primary's
      // synchronous_standby_names (and pg_stat_replication) know it, and takes a port of its own.
      const conf = join(dir, 'postgresql.conf');
      await appendFile(
        conf,
        [
          `port = ${port}`,
          `unix_socket_directories = '${dir}'`,
          `primary_conninfo = 'host=127.0.0.1 port=${primaryPort} user=postgres application_name=${name}'`,
          `synchronous_standby_names = ''`,
          '',
        ].join('\n'),
      );
      await writeFile(join(dir, 'postgresql.auto.conf'), '');
      await run('chown', ['postgres:postgres', join(dir, 'postgresql.auto.conf')]);
      await start(bin, dir);
      servers.push(serverOf(bin, name, port, dir));
    }
    const standbys = servers.slice(1);
    // Synchronous once the standby streams (a commit before that would wait for it forever).
    if (synchronous) {
      await primary.query("ALTER SYSTEM SET synchronous_standby_names = 'standby1'");
      await primary.query('SELECT pg_reload_conf()');
    }
    // Every standby streaming (and the first one synchronous when asked), within 30 s.
    for (let tries = 0; ; tries++) {
      const rows = await primary.query<{ application_name: string; state: string; sync_state: string }>(
        'SELECT application_name, state, sync_state FROM pg_stat_replication',
      );
      const streaming = standbys.every((s) =>
        rows.some((row) => row.application_name === s.name && row.state === 'streaming'),
      );
      const syncOk =
        !synchronous || rows.some((row) => row.application_name === 'standby1' && row.sync_state === 'sync');
      if (streaming && syncOk) break;
      if (tries > 300) throw new Error(`standbys did not start streaming: ${JSON.stringify(rows)}`);
      await sleep(100);
    }
    const hosts = (list: readonly PgServer[]) => list.map((server) => server.hostPort).join(',');
    return {
      primary,
      standbys,
      database,
      url: `postgres://postgres@${hosts(servers)}/${database}?target_session_attrs=read-write`,
      readUrl: `postgres://postgres@${hosts(standbys)}/${database}`,
      stop: stopAll,
    };
  } catch (error) {
    await stopAll();
    throw error;
  }
}
