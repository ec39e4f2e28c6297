// Which of DATABASE_URL's hosts to connect to: the `pg` driver takes one host, libpq's multi-host form
// lists several (a primary and its standbys), and after a failover the primary is another one. The
// locator asks every host at once what it is, keeps the one that suits (the primary, for the gateway's
// writes), shares that answer between all connections, and asks again when a connection to it fails.
import type { DatabaseHost, TargetSessionAttrs } from './hosts.ts';

/** What a server says about a session: read-only (libpq's read-write test), in recovery (a standby). */
export interface SessionState {
  readonly readOnly: boolean;
  readonly hotStandby: boolean;
}

/** While no host suits, a new discovery starts at most this often (ms); calls in between fail at once. */
export const REDISCOVERY_INTERVAL_MS = 250;

/**
 * The session attributes the gateway's own database is opened with. It writes: several hosts without
 * target_session_attrs mean read-write (libpq's `any` would take whichever host answers first, a standby
 * included). One host without it is taken as it is, as before, with no check.
 */
export function writerTarget(
  target: TargetSessionAttrs | undefined,
  hostCount: number,
): TargetSessionAttrs | undefined {
  return target ?? (hostCount > 1 ? 'read-write' : undefined);
}

/** Whether a session in this state is what the target asks for (libpq's meanings). */
export function suits(target: TargetSessionAttrs | undefined, state: SessionState): boolean {
  switch (target) {
    case 'read-write':
      return !state.readOnly;
    case 'read-only':
      return state.readOnly;
    case 'primary':
      return !state.hotStandby;
    case 'standby':
      return state.hotStandby;
    default:
      return true;
  }
}

/** Whether a target needs the server's state at all (`any` and no target take any session). */
export function needsCheck(target: TargetSessionAttrs | undefined): boolean {
  return target !== undefined && target !== 'any' && target !== 'prefer-standby';
}

/** host:port, as the logs and messages name a server (IPv6 in brackets). */
export function hostName({ host, port }: DatabaseHost): string {
  return `${host.includes(':') ? `[${host}]` : host}:${port}`;
}

/**
 * No host suits now (none answers, or every one that does is a standby): the database cannot serve
 * writes now, and the caller may try again. SQLSTATE 08001 (the client could not establish a
 * connection) is what store/database/unavailable.ts counts as "unavailable": a 503, not a 500.
 */
export class NoSuitableHostError extends Error {
  readonly code = '08001';
  constructor(message: string) {
    super(message);
    this.name = 'NoSuitableHostError';
  }
}

export interface LocatorOptions {
  readonly hosts: readonly DatabaseHost[];
  readonly target: TargetSessionAttrs | undefined;
  /** Asks one host what its sessions are, on a connection of its own, within the connect bound. */
  readonly probe: (host: DatabaseHost) => Promise<SessionState>;
  /** A host is in use, another than before (a failover followed) or the first. */
  readonly onFound?: (host: DatabaseHost, before: DatabaseHost | undefined) => void;
  /** The host in use was lost: connections look for one again. */
  readonly onLost?: (host: DatabaseHost) => void;
  /** A discovery found no host that suits; said once until one is found again. */
  readonly onNone?: (message: string) => void;
  readonly now?: () => number;
}

export class HostLocator {
  private known: DatabaseHost | undefined;
  /** The last host in use, kept while none is, to say which one a failover left. */
  private last: DatabaseHost | undefined;
  private noneSaid = false;
  private discovery: Promise<DatabaseHost> | undefined;
  private failed: { readonly at: number; readonly message: string } | undefined;
  private readonly now: () => number;

  constructor(private readonly options: LocatorOptions) {
    this.now = options.now ?? performance.now.bind(performance);
    // One host and nothing to check: that host, as libpq would take it.
    if (options.hosts.length === 1 && !needsCheck(options.target)) this.known = options.hosts[0];
  }

  /** The host to connect to: the one known to suit, or the first to answer a discovery as suiting. */
  current(): Promise<DatabaseHost> {
    if (this.known !== undefined) return Promise.resolve(this.known);
    if (this.discovery !== undefined) return this.discovery;
    const failed = this.failed;
    if (failed !== undefined && this.now() - failed.at < REDISCOVERY_INTERVAL_MS)
      return Promise.reject(new NoSuitableHostError(failed.message));
    const discovery = this.discover().finally(() => {
      if (this.discovery === discovery) this.discovery = undefined;
    });
    this.discovery = discovery;
    return discovery;
  }

  /**
   * A connection to this host failed, ended, or found it does not suit (a standby): forget it, so the
   * next connection looks again. A discovery under way is left to finish.
   */
  lost(host: DatabaseHost): void {
    if (this.options.hosts.length === 1 && !needsCheck(this.options.target)) return;
    if (this.known === undefined || !sameHost(this.known, host)) return;
    this.known = undefined;
    this.last = host;
    this.options.onLost?.(host);
  }

  /**
   * Every host asked at once; the first to answer as suiting wins. A host that answers late is not
   * waited for: a machine that is gone is silent, and waiting for it would cost every discovery the
   * whole connect bound. Two hosts that both take writes (a split brain) are the failover mechanism's
   * to prevent; the list's order could not make that safe either.
   */
  private discover(): Promise<DatabaseHost> {
    const { hosts, target, probe } = this.options;
    const why: string[] = new Array(hosts.length);
    return new Promise<DatabaseHost>((resolve, reject) => {
      let pending = hosts.length;
      // Hosts that have not answered once yet (a machine gone silent answers at the connect bound).
      let unanswered = hosts.length;
      let settled = false;
      const answered = () => {
        pending -= 1;
        if (pending > 0 || settled) return;
        const message = `no database host is ${target ?? 'reachable'}: ${why.join('; ')}`;
        this.failed = { at: this.now(), message };
        if (!this.noneSaid) this.options.onNone?.(message);
        this.noneSaid = true;
        reject(new NoSuitableHostError(message));
      };
      // Re-asks waiting for their interval; once every host has answered once they stop, each counted
      // as its host's answer (nothing left to wait for: the discovery ends now).
      const waiting = new Set<NodeJS.Timeout>();
      const firstAnswer = () => {
        unanswered -= 1;
        if (unanswered > 0) return;
        for (const timer of waiting) {
          clearTimeout(timer);
          answered();
        }
        waiting.clear();
      };
      const ask = (host: DatabaseHost, index: number, first: boolean) => {
        probe(host).then(
          (state) => {
            if (!settled && suits(target, state)) {
              settled = true;
              this.found(host);
              resolve(host);
            }
            why[index] = `${hostName(host)} is ${describe(state)}`;
            if (first) firstAnswer();
            // A standby that answered while another host is still silent (the old primary's machine
            // gone, answered only at the connect bound) may be promoted meanwhile: asked again every
            // interval, so that a promotion is found then, not once the silent host's bound has passed.
            if (!settled && unanswered > 0) {
              const timer = setTimeout(() => {
                waiting.delete(timer);
                if (settled) answered();
                else ask(host, index, false);
              }, REDISCOVERY_INTERVAL_MS);
              waiting.add(timer);
              return;
            }
            answered();
          },
          (error: unknown) => {
            why[index] = `${hostName(host)} did not answer (${reasonOf(error)})`;
            if (first) firstAnswer();
            answered();
          },
        );
      };
      for (const [index, host] of hosts.entries()) ask(host, index, true);
    });
  }

  private found(host: DatabaseHost): void {
    const before = this.known ?? this.last;
    this.known = host;
    this.failed = undefined;
    this.noneSaid = false;
    if (before === undefined || !sameHost(before, host)) this.options.onFound?.(host, before);
  }
}

function describe(state: SessionState): string {
  if (state.hotStandby) return 'a standby';
  return state.readOnly ? 'read-only' : 'a primary';
}

function sameHost(a: DatabaseHost, b: DatabaseHost): boolean {
  return a.host === b.host && a.port === b.port;
}

/** A failure's code or first line, for a message: never a URL or a password (probes do not carry them). */
function reasonOf(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' ? code : (error.message.split('\n')[0] ?? error.name);
}
