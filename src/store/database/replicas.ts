// Reads on streaming standbys (DATABASE_READ_URL), with bounded staleness: a handle (readDb) whose every
// statement goes to a standby that is at most `maxLagMs` behind the primary, round robin, or else to
// the primary. A standby that fails under a read is skipped at once and the read is served by the
// primary (a read can be asked twice), so a standby that goes never costs a request its answer.
//
// How far behind a standby is: the primary's WAL position is sampled every `interval` (with the time
// just before it was asked), and each standby's replayed position likewise; a standby that has
// replayed the sample taken at T holds every commit acknowledged before T, so it is at most now - T
// behind. An idle primary writes nothing, and the standby that replayed its last position is as fresh
// as the last sample (the replay timestamp alone would call it ever further behind); a standby cut
// from its primary, or whose replay is paused, falls behind as time passes (receive = replay alone
// would call it current); so does a standby or a primary that stops answering. docs/decisions.md,
// "Issue 42: reads on standbys".
import type pg from 'pg';
import type { ReadCounts, StoreDb } from '../database.ts';
import { serveStatements } from '../database.ts';
import * as schema from '../schema.ts';
import { type DatabaseHost, parseDatabaseHosts } from './hosts.ts';
import { isDatabaseUnavailable } from './unavailable.ts';

/** A server's two pools (postgres.ts): Drizzle's statements, and the named ones planned once. */
export interface ServerPools {
  readonly pool: pg.Pool;
  readonly statements: pg.Pool;
}

export interface ReadStoreOptions {
  /** DATABASE_READ_URL: one or more standbys in libpq's multi-host form. */
  readonly readUrl: string;
  readonly maxLagMs: number;
  readonly primary: ServerPools;
  /** The pools of one standby, with the primary's settings and bounds (postgres.ts). */
  readonly poolsFor: (url: string) => ServerPools;
}

export interface ReadStore {
  readonly db: StoreDb;
  counts(): ReadCounts;
  close(): Promise<void>;
}

/** DATABASE_READ_URL that does not parse: store/open-failures.ts names the setting. */
export class ReadUrlError extends Error {
  override readonly name = 'ReadUrlError';
}

interface Standby {
  readonly pools: ServerPools;
  /** Every commit acknowledged before this instant (ms) has been replayed; undefined: unknown. */
  freshAt: number | undefined;
  probing: boolean;
}

/** A pg_lsn (`16/B374D848`) as a number of bytes. */
function lsnValue(text: string): bigint {
  const [high = '0', low = '0'] = text.split('/');
  return (BigInt(`0x${high}`) << 32n) + BigInt(`0x${low}`);
}

/**
 * Errors after which the primary serves the read: the standby cannot answer (refused, cut, silent past
 * the pool's bounds) or cancelled the statement to replay the primary's changes (a recovery conflict,
 * 40001/40P01). Not the server's statement timeout (57014): the standby answers but the read is slow,
 * and asked again it would take that long a second time.
 */
function standbyFailed(error: unknown): boolean {
  // The driver's error, or Drizzle's around it.
  const codes = [error, (error as { cause?: unknown } | undefined)?.cause].map(
    (each) => (each as { code?: unknown } | undefined)?.code,
  );
  if (codes.includes('57014')) return false;
  if (codes.includes('40001') || codes.includes('40P01')) return true;
  return isDatabaseUnavailable(error);
}

/** How often the positions are sampled: a quarter of the bound, within 25-250 ms. */
function sampleInterval(maxLagMs: number): number {
  return Math.min(250, Math.max(25, Math.floor(maxLagMs / 4)));
}

export async function openReadStore(options: ReadStoreOptions): Promise<ReadStore> {
  let hosts: readonly DatabaseHost[];
  let urlFor: (host: DatabaseHost) => string;
  try {
    ({ hosts, urlFor } = parseDatabaseHosts(options.readUrl));
  } catch (error) {
    throw new ReadUrlError(error instanceof Error ? error.message : String(error));
  }
  const { maxLagMs, primary } = options;
  const standbys: Standby[] = hosts.map((host) => ({
    pools: options.poolsFor(urlFor(host)),
    freshAt: undefined,
    probing: false,
  }));
  /** The primary's WAL positions, oldest first, each with the instant just before it was asked. */
  const samples: { at: number; lsn: bigint }[] = [];
  let sampling = false;
  let next = 0;
  const counts = { standby: 0, primary: 0 };

  const usable = (standby: Standby, now: number) =>
    standby.freshAt !== undefined && now - standby.freshAt <= maxLagMs;

  async function samplePrimary(): Promise<void> {
    if (sampling) return;
    sampling = true;
    const at = performance.now();
    try {
      const { rows } = await primary.pool.query<{ lsn: string }>('SELECT pg_current_wal_lsn()::text AS lsn');
      samples.push({ at, lsn: lsnValue(rows[0]!.lsn) });
      // Samples older than the bound can no longer make a standby usable; the newest always stays.
      while (samples.length > 1 && samples[0]!.at < at - maxLagMs - sampleInterval(maxLagMs)) samples.shift();
    } catch {
      // No sample: every standby falls behind as time passes, and reads go to the primary (if any).
    } finally {
      sampling = false;
    }
  }

  async function probe(standby: Standby): Promise<void> {
    if (standby.probing) return;
    standby.probing = true;
    try {
      const { rows } = await standby.pools.pool.query<{ recovery: boolean; lsn: string | null }>(
        'SELECT pg_is_in_recovery() AS recovery, pg_last_wal_replay_lsn()::text AS lsn',
      );
      const row = rows[0]!;
      // A server out of recovery (promoted) is no standby of the primary's: its writes are its own.
      if (!row.recovery || row.lsn === null) {
        standby.freshAt = undefined;
        return;
      }
      const replayed = lsnValue(row.lsn);
      const reached = samples.filter((sample) => sample.lsn <= replayed).at(-1);
      standby.freshAt = reached === undefined ? standby.freshAt : Math.max(reached.at, standby.freshAt ?? 0);
    } catch {
      standby.freshAt = undefined;
    } finally {
      standby.probing = false;
    }
  }

  const tick = () => {
    void samplePrimary();
    for (const standby of standbys) void probe(standby);
  };
  const timer = setInterval(tick, sampleInterval(maxLagMs));
  timer.unref();
  tick();

  /** A usable standby, the next in turn, or undefined (the primary serves). */
  function pick(): Standby | undefined {
    const now = performance.now();
    for (let tried = 0; tried < standbys.length; tried++) {
      const standby = standbys[next++ % standbys.length]!;
      if (usable(standby, now)) return standby;
    }
    return undefined;
  }

  async function route<T>(run: (pools: ServerPools) => Promise<T>): Promise<T> {
    const standby = pick();
    if (standby !== undefined) {
      try {
        const answer = await run(standby.pools);
        counts.standby += 1;
        return answer;
      } catch (error) {
        if (!standbyFailed(error)) throw error;
        // Skipped until the next probe finds it answering and current again.
        standby.freshAt = undefined;
      }
    }
    const answer = await run(primary);
    counts.primary += 1;
    return answer;
  }

  // Drizzle's statements on the pool route() picks; its name says "Pool", so that a transaction
  // (drizzle-orm/node-postgres asks the name) would hold one connection of one server.
  class ReadPool {
    query(config: unknown, values?: unknown) {
      return route((pools) => pools.pool.query(config as pg.QueryConfig, values as unknown[]));
    }
    connect() {
      const standby = pick();
      return (standby?.pools ?? primary).pool.connect();
    }
  }
  const { drizzle } = await import('drizzle-orm/node-postgres');
  const db = drizzle(new ReadPool() as unknown as pg.Pool, { schema }) as unknown as StoreDb;
  serveStatements(
    db,
    async (name, text, values) =>
      (await route((pools) => pools.statements.query({ name, text, values: [...values] }))).rows,
  );
  return {
    db,
    counts: () => ({ ...counts }),
    close: async () => {
      clearInterval(timer);
      await Promise.all(standbys.flatMap(({ pools }) => [pools.pool.end(), pools.statements.end()]));
    },
  };
}
