// The `pg` side of choosing a host among DATABASE_URL's (primary.ts decides which): a client class for
// the pools that connects to the host the locator names and, when the URL asks for a primary, refuses a
// server that turns out to be a standby before anything is sent on it; and the short-lived probe a
// discovery asks each host with.
import type pg from 'pg';
import type { StoreLogger } from '../database.ts';
import type { DatabaseHost, DatabaseHosts, TargetSessionAttrs } from './hosts.ts';
import {
  HostLocator,
  hostName,
  NoSuitableHostError,
  needsCheck,
  type SessionState,
  suits,
  writerTarget,
} from './primary.ts';
import { isDatabaseUnavailable } from './unavailable.ts';

type PgModule = typeof pg;

/** SQLSTATE read_only_sql_transaction: a write reached a server that takes none. */
const READ_ONLY_TRANSACTION = '25006';

/**
 * Whether a failed connect says the host cannot serve at all (refused, reset, silent, shutting down),
 * not that it answered and refused this one connection (too many clients, 53300; a bad setting).
 */
function hostIsGone(error: unknown): boolean {
  const code = (error as { code?: unknown } | undefined)?.code;
  return isDatabaseUnavailable(error) && code !== '53300';
}

/**
 * The parameters a server reports on its own at the start of a session (ParameterStatus): PostgreSQL 14
 * and later report in_hot_standby and default_transaction_read_only, so libpq's check costs no round
 * trip there.
 */
function reportedParameters(client: pg.Client): Map<string, string> {
  const reported = new Map<string, string>();
  client.connection.on('parameterStatus', (message: { parameterName: string; parameterValue: string }) => {
    reported.set(message.parameterName, message.parameterValue);
  });
  return reported;
}

/** What libpq asks: the reported parameters where the server sends them, else one query. */
async function sessionState(client: pg.Client, reported: ReadonlyMap<string, string>): Promise<SessionState> {
  const hotStandby = reported.get('in_hot_standby');
  const defaultReadOnly = reported.get('default_transaction_read_only');
  if (hotStandby !== undefined && defaultReadOnly !== undefined)
    return { hotStandby: hotStandby === 'on', readOnly: hotStandby === 'on' || defaultReadOnly === 'on' };
  const { rows } = await client.query<{ hot_standby: boolean; read_only: string }>(
    "SELECT pg_is_in_recovery() AS hot_standby, current_setting('transaction_read_only') AS read_only",
  );
  const row = rows[0]!;
  return { hotStandby: row.hot_standby, readOnly: row.read_only === 'on' };
}

/** Rejects after ms unless the promise settled first; onLate runs then (to drop a connection). */
function within<T>(ms: number, promise: Promise<T>, what: string, onLate: () => void = () => {}): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      onLate();
      reject(new Error(`timeout exceeded when trying to connect (${what}, ${ms} ms)`));
    }, ms);
    // A probe still out when the store closes must not hold the process open.
    timer.unref();
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

/**
 * A discovery's question to one host, on a connection of its own that is closed at once: what its
 * sessions are, within connectMs in all (a silent host is given up, not waited for).
 */
function sessionProbe(
  pgModule: PgModule,
  urlOf: (host: DatabaseHost) => string,
  connectMs: number,
): (host: DatabaseHost) => Promise<SessionState> {
  return async (host) => {
    const client = new pgModule.Client({ connectionString: urlOf(host), connectionTimeoutMillis: connectMs });
    client.on('error', () => {});
    const reported = reportedParameters(client);
    const asked = (async () => {
      await client.connect();
      return sessionState(client, reported);
    })();
    try {
      return await within(connectMs, asked, hostName(host), () => client.connection.stream.destroy());
    } finally {
      asked.catch(() => {});
      client.end().catch(() => {});
    }
  };
}

interface OpenConnections {
  add(client: pg.Client, host: DatabaseHost): void;
  /** Ends every connection to the host at once (their calls fail as "unavailable"). */
  cut(host: DatabaseHost): void;
}

/** The connected clients of both pools and their host, until each ends. */
function openConnections(): OpenConnections {
  const open = new Map<pg.Client, DatabaseHost>();
  return {
    add(client, host) {
      open.set(client, host);
      client.on('end', () => open.delete(client));
    },
    cut(host) {
      for (const [client, on] of open)
        if (hostName(on) === hostName(host)) client.connection.stream.destroy();
    },
  };
}

/**
 * A pg Client class whose connections go to the host the locator names (pg takes the host from its
 * settings at connect, so it is set just before). A connection that fails, breaks later, or leaves a
 * statement unanswered past pg's read timeout tells the locator, which then looks again; a server that
 * is not what the target asks for (a standby that is still read-only) is disconnected before any
 * statement and the connect fails as "unavailable".
 */
function hostRoutedClient(
  pgModule: PgModule,
  locator: HostLocator,
  target: TargetSessionAttrs | undefined,
  connectMs: number,
  open: OpenConnections,
): PgModule['Client'] {
  const check = needsCheck(target);
  class HostRoutedClient extends pgModule.Client {
    located: DatabaseHost | undefined;

    // pg-pool connects with a callback; a client of its own is connected with a promise (as pg's).
    override connect(): Promise<pg.Client>;
    override connect(callback: ((error: Error) => void) | ((error: null, client: pg.Client) => void)): void;
    override connect(
      callback?: ((error: Error) => void) | ((error: null, client: pg.Client) => void),
    ): Promise<pg.Client> | undefined {
      const connected = this.connectToLocated().then(() => this);
      if (callback === undefined) return connected;
      const done = callback as (error: Error | null, client?: pg.Client) => void;
      connected.then((client) => done(null, client), done);
      return undefined;
    }

    private async connectToLocated(): Promise<void> {
      // The pool's connect bound holds for the wait for a host too.
      const host = await within(connectMs, locator.current(), 'finding the database host');
      if (this.connection.stream.destroyed)
        throw new Error('timeout exceeded when trying to connect (finding the database host)');
      this.host = host.host;
      this.port = host.port;
      const parameters = (this as unknown as { connectionParameters: { host: string; port: number } })
        .connectionParameters;
      parameters.host = host.host;
      parameters.port = host.port;
      const reported = reportedParameters(this);
      // Listening before the session is checked: a reset while the check's query runs (a server or a
      // pooler that does not report in_hot_standby) must not be an unhandled 'error' (pg-pool listens
      // only once the connect is done). A connection to it that breaks later: look again.
      this.on('error', () => locator.lost(host));
      try {
        await super.connect();
        if (check) {
          const state = await within(connectMs, sessionState(this, reported), hostName(host), () =>
            this.connection.stream.destroy(),
          );
          if (!suits(target, state))
            throw new NoSuitableHostError(
              `${hostName(host)} is ${state.hotStandby ? 'a standby' : 'read-only'}, not ${target}`,
            );
        }
      } catch (error) {
        // The host is gone or is not what the target asks for: look again. Not when the server answered
        // and refused this one connection (too many clients, a bad setting): it is still the primary.
        if (error instanceof NoSuitableHostError || hostIsGone(error)) locator.lost(host);
        this.end().catch(() => {});
        throw error;
      }
      this.located = host;
      open.add(this, host);
    }
  }
  // pg's read timeout (query_timeout: the statement bound and a second, past the server's own
  // statement_timeout) means the server no longer answers at all: a machine gone silent. Nothing is
  // closed then, so without this the locator would learn it only from a new connection's timeout.
  const query = pgModule.Client.prototype.query as (...args: unknown[]) => unknown;
  // The other connections to it would each hold a call as long: they are cut too.
  // So is a statement refused as read-only (25006): the host was made read-only under way (a demotion,
  // a fencing tool); its pooled connections would go on refusing writes after another is promoted.
  const silent = (client: HostRoutedClient, error: unknown) => {
    const gone =
      error instanceof Error &&
      (error.message === 'Query read timeout' ||
        (error as { code?: unknown }).code === READ_ONLY_TRANSACTION);
    if (gone && client.located !== undefined) {
      locator.lost(client.located);
      open.cut(client.located);
    }
  };
  HostRoutedClient.prototype.query = function (this: HostRoutedClient, ...args: unknown[]) {
    const last = args.length - 1;
    const callback = args[last];
    if (typeof callback === 'function')
      args[last] = (error: unknown, result: unknown) => {
        silent(this, error);
        callback(error, result);
      };
    const result = query.apply(this, args);
    if (result instanceof Promise) result.catch((error: unknown) => silent(this, error));
    return result;
  } as pg.Client['query'];
  return HostRoutedClient;
}

/**
 * The pools' client class for the gateway's own database: one locator shared by every connection of
 * the store, which logs each host it finds or loses (host and port, never the URL). Undefined for one
 * host whose URL asks for no check: pg's own client, exactly as before, with no extra round trip.
 */
export function routedClient(
  pgModule: PgModule,
  parsed: DatabaseHosts,
  options: {
    readonly urlOf: (host: DatabaseHost) => string;
    readonly connectMs: number;
    readonly logger?: StoreLogger | undefined;
  },
): PgModule['Client'] | undefined {
  const target = writerTarget(parsed.target, parsed.hosts.length);
  if (parsed.hosts.length === 1 && !needsCheck(target)) return undefined;
  const { logger: log, connectMs } = options;
  const open = openConnections();
  const locator = new HostLocator({
    hosts: parsed.hosts,
    target,
    probe: sessionProbe(pgModule, options.urlOf, connectMs),
    onFound: (host, before) => {
      // Connections to the host in use before are cut: a silent one would hold each call that takes
      // it until the statement bound, and one that still answers (a demoted or partitioned old
      // primary) must not take writes any more.
      if (before !== undefined) open.cut(before);
      log?.info(
        { databaseHost: hostName(host), before: before && hostName(before) },
        before === undefined
          ? `database: ${hostName(host)} is ${target}; connections go there`
          : `database: ${hostName(host)} is ${target} now (was ${hostName(before)}); new connections go there`,
      );
    },
    onLost: (host) =>
      log?.warn(
        { databaseHost: hostName(host) },
        `database: lost ${hostName(host)}; looking for the ${target} host`,
      ),
    onNone: (message) => log?.warn({ target }, `database: ${message}`),
  });
  return hostRoutedClient(pgModule, locator, target, connectMs, open);
}
