// The one place that reads the environment. Every setting is validated here and the result is frozen;
// the rest of the code receives a Config as an argument.
import { parseDatabaseHosts, type TargetSessionAttrs } from './store/database/hosts.ts';

export type Mode = 'sandbox' | 'live';
export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
type LogFormat = 'pretty' | 'json';

export interface Config {
  readonly port: number;
  readonly host: string;
  readonly mode: Mode;
  /** Prefix of every route, '' or '/something' without a trailing slash. */
  readonly basePath: string;
  /**
   * Further prefixes (from the origin) under which the OAuth token and decoupled routes answer too,
   * as the real service's live token URL does (`/bb/gls5`).
   */
  readonly authBasePaths: readonly string[];
  /** Behind a proxy: links and client addresses follow X-Forwarded-Proto, -Host and -For. */
  readonly trustProxy: boolean;
  /** Absolute origin used in links we hand out; when unset, links use the request's own origin. */
  readonly publicUrl: string | undefined;
  readonly databaseUrl: string | undefined;
  /**
   * PostgreSQL standbys (libpq's multi-host form) that serve account information, funds checks and
   * the status of final payments while they are at most `databaseReadMaxLagMs` behind; unset: the
   * primary serves every read.
   */
  readonly databaseReadUrl: string | undefined;
  /** How far behind the primary a standby may be and still serve reads, ms. */
  readonly databaseReadMaxLagMs: number;
  /** On-disk PGlite directory; in memory when unset. Ignored when databaseUrl is set. */
  readonly dataDir: string | undefined;
  readonly logLevel: LogLevel;
  /** The log's lines: `pretty` for people at a terminal (pino-pretty), `json` for machines. */
  readonly logFormat: LogFormat;
  /** The seeded sandbox app; generated at start when unset. UUID without dashes. */
  readonly sandboxClientId: string | undefined;
  readonly sandboxRedirectUri: string | undefined;
  /** Processes that serve the port together (node:cluster); more than one needs PostgreSQL. */
  readonly workers: number;
  /** Other header names accepted for X-Gateway-Client-Id, lower-cased. */
  readonly clientIdHeaderAliases: readonly string[];
  /** The bank's time zone: decides what "today" is for execution dates. */
  readonly timeZone: string;
  /** Largest accepted request body in bytes. */
  readonly bodyLimit: number;
  /** How long a stop (SIGTERM, SIGINT) may wait for requests in flight before the process exits, ms. */
  readonly shutdownTimeoutMs: number;
  /** PostgreSQL: how long opening a connection and running a statement may take, ms. */
  readonly databaseTimeouts: { readonly connectMs: number; readonly statementMs: number };
  /** PostgreSQL: connections of each of the store's two pools (the named statements', and the rest). */
  readonly databasePoolSize: number;
  /** How often the scheduler books due future-dated payments, in ms; 0 turns it off. */
  readonly schedulerIntervalMs: number;
  /** How often a process adds its counted answers to the RTS Art. 32 statistics, ms; 0: not counted. */
  readonly availabilityFlushMs: number;
  /**
   * The audit trail's seal key (AUDIT_KEY, 32 characters or more: 128 random bits in hex at least);
   * required live. Unset in the sandbox: a key generated once and kept in the database.
   */
  readonly auditKey: string | undefined;
  /** How often a gateway seals the audit records written meanwhile, ms (AUDIT_SEAL_INTERVAL_MS); 0: never. */
  readonly auditSealIntervalMs: number;
  /** How often a gateway looks for status notifications to send, ms (NOTIFICATION_POLL_MS); 0: never. */
  readonly notificationPollMs: number;
  /** How long a notification's receiver has to answer, ms (NOTIFICATION_TIMEOUT_MS). */
  readonly notificationTimeoutMs: number;
  /** The most notifications of one app in flight at once, across all processes (NOTIFICATION_IN_FLIGHT_PER_APP). */
  readonly notificationInFlightPerApp: number;
  /** Audit records older than this many days are deleted (AUDIT_RETENTION_DAYS); undefined: kept. */
  readonly auditRetentionDays: number | undefined;
  /**
   * The PEM file of the key that signs status notifications (NOTIFICATION_SIGNING_KEY: PKCS#8, EC P-256);
   * required live. Unset in the sandbox: a key generated once and kept in the database.
   */
  readonly notificationSigningKey: string | undefined;
  /**
   * PEM files of earlier signing keys (public or private) still published in the JWKS while a rotation
   * runs (NOTIFICATION_SIGNING_KEYS_RETIRED, comma-separated); they sign nothing.
   */
  readonly notificationSigningKeysRetired: readonly string[];
  /** PEM files of mutual TLS; required in live mode. */
  readonly tls: TlsFiles | undefined;
  /**
   * Seed the test customers (with their documented password) into the built-in systems. On by default
   * in the sandbox only: a live gateway with known credentials must be asked for.
   */
  readonly seedTestData: boolean;
  /**
   * Who identifies PSUs in the decoupled flow: the built-in simulator (the sandbox's default; live only
   * when asked for by name) or the national e-ID's relying-party API (BankID v6).
   */
  readonly eidProvider: EidProviderSetting;
  /** The PSU login of the redirect flow: the bank's OpenID Connect provider; unset: the built-in login. */
  readonly psuOidc: PsuOidcSetting | undefined;
  /** The bank's core banking system over HTTP; unset: the built-in ledger. */
  readonly coreBanking: CoreBankingSetting | undefined;
  /** Where exchange rates come from: the sandbox's fixed rates, or a file or URL refreshed on a schedule. */
  readonly fxRates: FxRatesSetting;
  /** Requests allowed per window, per app or client address (api/shared/rate-limits.ts); 0: no limit. */
  readonly rateLimits: RateLimitSettings;
  /** Redis that shares the rate limits' counters between processes; unset: each process counts alone. */
  readonly redisUrl: string | undefined;
  /**
   * The port of the metrics' own listener (GET /metrics, Prometheus); unset: none (the sandbox serves
   * /metrics on the public listener too; live then serves no metrics).
   */
  readonly metricsPort: number | undefined;
  /** The address the metrics' listener binds to: this machine only unless it says otherwise. */
  readonly metricsHost: string;
}

export interface RateLimitSettings {
  /** The window every limit counts in, ms. */
  readonly windowMs: number;
  /** Payment, account and onboarding API calls per app, counted once the call is authenticated. */
  readonly apiPerApp: number;
  /** API calls per client address, before anything is looked up (RATE_LIMIT_API_PER_ADDRESS). */
  readonly apiPerAddress: number;
  /** Token, authorize and decoupled-start calls per app (client_id) from one client address. */
  readonly authorizationPerApp: number;
  /** Token, authorize and decoupled calls per client address. */
  readonly authorizationPerAddress: number;
  /** The PSU's password pages (login, the e-ID simulator's sign) per client address. */
  readonly psuLoginPerAddress: number;
}

/** A service the gateway calls over HTTPS, with its client certificate (mutual TLS) and trusted issuers. */
export interface ClientTlsFiles {
  readonly cert: string | undefined;
  readonly key: string | undefined;
  /** Trusted issuers of the service's certificate; unset: the system's. */
  readonly ca: string | undefined;
}

export type EidProviderSetting =
  | { readonly kind: 'simulator' }
  | { readonly kind: 'bankid'; readonly url: string; readonly tls: ClientTlsFiles };

export interface PsuOidcSetting {
  readonly issuer: string;
  readonly clientId: string;
  readonly clientSecret: string;
  /** The ID token claim that carries the PSU id (e.g. a personal number); default sub. */
  readonly idClaim: string;
}

export interface CoreBankingSetting {
  readonly url: string;
  readonly tls: ClientTlsFiles;
  /** How long one call may take before it is retried (same idempotency key), ms. */
  readonly timeoutMs: number;
}

export type FxRatesSetting =
  | { readonly kind: 'sandbox' }
  | { readonly kind: 'file'; readonly path: string; readonly refreshMs: number }
  | { readonly kind: 'url'; readonly url: string; readonly refreshMs: number }
  /** Live without a rate source: cross-currency payments are refused (FX_RATES=none). */
  | { readonly kind: 'none' };

export interface TlsFiles {
  /** The server's certificate chain and key. */
  readonly cert: string;
  readonly key: string;
  /**
   * The trusted issuers of TPP certificates (QWAC, OBWAC): mutual TLS. Without them (sandbox only) the
   * gateway serves plain HTTPS and asks for no client certificate.
   */
  readonly clientCa: string | undefined;
  /** Certificate revocation lists of those issuers. */
  readonly crl: string | undefined;
}

export class ConfigError extends Error {
  constructor(
    readonly key: string,
    message: string,
  ) {
    super(`${key}: ${message}`);
    this.name = 'ConfigError';
  }
}

/**
 * The start failed on something outside the process that a setting names (a database that does not
 * answer, a port in use): the message says which setting and what to do; main prints it without a stack.
 */
export class StartError extends Error {
  constructor(
    readonly key: string,
    message: string,
  ) {
    super(`${key}: ${message}`);
    this.name = 'StartError';
  }
}

type Env = Readonly<Record<string, string | undefined>>;

const LOG_LEVELS: readonly LogLevel[] = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];
const SANDBOX_CLIENT_ID = /^[0-9a-f]{32}$/;
const HEADER_NAME = /^[A-Za-z0-9-]{1,64}$/;

function text(env: Env, key: string): string | undefined {
  const value = env[key]?.trim();
  return value === '' ? undefined : value;
}

/** AUDIT_KEY: required live (a generated key kept beside the records proves nothing to a supervisor). */
function auditKey(env: Env, mode: Mode): string | undefined {
  const key = text(env, 'AUDIT_KEY');
  if (key === undefined) {
    if (mode === 'live')
      throw new ConfigError(
        'AUDIT_KEY',
        'live mode needs AUDIT_KEY: 32 or more characters, e.g. openssl rand -hex 32',
      );
    return undefined;
  }
  if (key.length < 32)
    throw new ConfigError('AUDIT_KEY', 'must be 32 characters or more (128 random bits in hex)');
  return key;
}

/** NOTIFICATION_SIGNING_KEY: required live (a TPP must be able to pin the bank's key across restarts). */
function notificationSigningKey(env: Env, mode: Mode): string | undefined {
  const path = text(env, 'NOTIFICATION_SIGNING_KEY');
  if (path === undefined && mode === 'live')
    throw new ConfigError(
      'NOTIFICATION_SIGNING_KEY',
      'live mode needs the PEM file of an EC P-256 private key that signs notifications, e.g. openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out notification-signing.pem',
    );
  return path;
}

function integer(env: Env, key: string, fallback: number, min: number, max: number): number {
  const raw = text(env, key);
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw)) throw new ConfigError(key, `must be a whole number, got "${raw}"`);
  const value = Number(raw);
  if (value < min || value > max)
    throw new ConfigError(key, `must be between ${min} and ${max}, got ${value}`);
  return value;
}

function oneOf<T extends string>(env: Env, key: string, allowed: readonly T[], fallback: T): T {
  const raw = text(env, key);
  if (raw === undefined) return fallback;
  if (!(allowed as readonly string[]).includes(raw)) {
    throw new ConfigError(key, `must be one of ${allowed.join(', ')}, got "${raw}"`);
  }
  return raw as T;
}

function url(env: Env, key: string, protocols: readonly string[]): string | undefined {
  const raw = text(env, key);
  if (raw === undefined) return undefined;
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(key, `must be an absolute URL, got "${raw}"`);
  }
  if (!protocols.includes(parsed.protocol)) {
    throw new ConfigError(key, `must use ${protocols.join(' or ')}, got "${parsed.protocol}"`);
  }
  return raw;
}

/**
 * A PostgreSQL URL, one host or several in libpq's form (`postgres://u@h1:5432,h2:5433/bank?
 * target_session_attrs=read-write`), checked with the parser the store connects with; its
 * target_session_attrs one of those given (the gateway's own database must take its writes). Messages
 * never show the password.
 */
function databaseUrl(env: Env, key: string, targets?: readonly TargetSessionAttrs[]): string | undefined {
  const raw = text(env, key);
  if (raw === undefined) return undefined;
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*:)\/\//.exec(raw)?.[1]?.toLowerCase();
  if (scheme === undefined)
    throw new ConfigError(
      key,
      // Not echoed: a string that is no URL may still hold a password.
      'must be an absolute URL: postgres://user:password@host:port/database, several hosts separated by commas',
    );
  if (scheme !== 'postgres:' && scheme !== 'postgresql:')
    throw new ConfigError(key, `must use postgres: or postgresql:, got "${scheme}"`);
  let parsed: ReturnType<typeof parseDatabaseHosts>;
  try {
    parsed = parseDatabaseHosts(raw);
  } catch (error) {
    throw new ConfigError(key, (error as Error).message);
  }
  parsed.hosts.forEach((host, index) => {
    if (!URL.canParse(parsed.urlFor(host)))
      throw new ConfigError(key, `host ${index + 1} of the URL does not make a URL with the rest of it`);
  });
  if (targets === undefined) return raw;
  // libpq's `any` takes the first host that answers: with several, that may be a standby.
  const allowed = parsed.hosts.length > 1 ? targets.filter((target) => target !== 'any') : targets;
  if (parsed.target !== undefined && !allowed.includes(parsed.target))
    throw new ConfigError(
      key,
      `target_session_attrs=${parsed.target} could send the gateway's writes to a standby: use ${allowed.join(' or ')}${parsed.hosts.length > 1 ? ' (or leave it out: several hosts mean read-write)' : ''}`,
    );
  return raw;
}

const PATH = /^(\/[A-Za-z0-9._~-]+)+\/?$/;

function basePath(env: Env): string {
  const raw = text(env, 'BASE_PATH');
  if (raw === undefined || raw === '/') return '';
  if (!PATH.test(raw)) throw new ConfigError('BASE_PATH', `must look like /openbanking, got "${raw}"`);
  return raw.replace(/\/$/, '');
}

function authBasePaths(env: Env, base: string): string[] {
  const paths = list(env, 'AUTH_BASE_PATHS');
  for (const path of paths) {
    if (!PATH.test(path))
      throw new ConfigError('AUTH_BASE_PATHS', `"${path}" must look like /bb/gls5 (a path from the origin)`);
  }
  const trimmed = paths.map((path) => path.replace(/\/$/, ''));
  const twice = trimmed.find((path, index) => path === base || trimmed.indexOf(path) !== index);
  if (twice !== undefined)
    throw new ConfigError('AUTH_BASE_PATHS', `"${twice}" is given twice (or is BASE_PATH itself)`);
  return trimmed;
}

function list(env: Env, key: string): string[] {
  return (text(env, key) ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
}

/** The bank's time zone unless TIME_ZONE names another: its "today" and its days' ends. */
export const DEFAULT_TIME_ZONE = 'Europe/Stockholm';

function timeZone(env: Env): string {
  const zone = text(env, 'TIME_ZONE') ?? DEFAULT_TIME_ZONE;
  // A canonical name is known without a formatter: the first Intl.DateTimeFormat of a process reads
  // about 6 MB of ICU's data and code, which an idle sandbox would hold resident from its start. A
  // formatter still decides the other names (aliases such as Etc/UTC, any case).
  if (Intl.supportedValuesOf('timeZone').includes(zone)) return zone;
  try {
    new Intl.DateTimeFormat('en', { timeZone: zone });
  } catch {
    throw new ConfigError('TIME_ZONE', `is not a known IANA time zone: "${zone}"`);
  }
  return zone;
}

function tlsFiles(env: Env, mode: Mode): TlsFiles | undefined {
  const cert = text(env, 'TLS_CERT');
  const key = text(env, 'TLS_KEY');
  const clientCa = text(env, 'TLS_CLIENT_CA');
  const crl = text(env, 'TLS_CRL');
  if (cert === undefined && key === undefined && clientCa === undefined && crl === undefined)
    return undefined;
  // The sandbox may serve plain HTTPS (its clients call the real sandbox so); live always asks for the
  // TPP's certificate.
  const required =
    mode === 'live' || crl !== undefined ? ['TLS_CERT', 'TLS_KEY', 'TLS_CLIENT_CA'] : ['TLS_CERT', 'TLS_KEY'];
  for (const [name, value] of [
    ['TLS_CERT', cert],
    ['TLS_KEY', key],
    ['TLS_CLIENT_CA', clientCa],
  ] as const) {
    if (value === undefined && required.includes(name))
      throw new ConfigError(name, 'is required with the other TLS_ settings');
  }
  return Object.freeze({ cert: cert!, key: key!, clientCa, crl });
}

function clientTls(env: Env, prefix: string): ClientTlsFiles {
  const cert = text(env, `${prefix}_CERT`);
  const key = text(env, `${prefix}_KEY`);
  if ((cert === undefined) !== (key === undefined))
    throw new ConfigError(
      cert === undefined ? `${prefix}_CERT` : `${prefix}_KEY`,
      `is required with ${prefix}_${cert === undefined ? 'KEY' : 'CERT'}`,
    );
  return Object.freeze({ cert, key, ca: text(env, `${prefix}_CA`) });
}

function eidProvider(env: Env, mode: Mode): EidProviderSetting {
  const kind = text(env, 'EID_PROVIDER');
  if (kind === undefined) {
    if (mode === 'live') {
      // The simulator checks no identity: live, it must be asked for by name.
      throw new ConfigError(
        'EID_PROVIDER',
        'live mode needs EID_PROVIDER=bankid (with BANKID_URL, BANKID_CERT, BANKID_KEY) or, to try live without an e-ID, EID_PROVIDER=simulator',
      );
    }
    return { kind: 'simulator' };
  }
  if (kind === 'simulator') return { kind };
  if (kind !== 'bankid') throw new ConfigError('EID_PROVIDER', `must be bankid or simulator, got "${kind}"`);
  const bankIdUrl = url(env, 'BANKID_URL', ['https:']);
  if (bankIdUrl === undefined) throw new ConfigError('BANKID_URL', 'is required with EID_PROVIDER=bankid');
  const tls = clientTls(env, 'BANKID');
  if (tls.cert === undefined)
    throw new ConfigError(
      'BANKID_CERT',
      "is required with EID_PROVIDER=bankid (the relying party's certificate)",
    );
  return Object.freeze({ kind, url: bankIdUrl.replace(/\/$/, ''), tls });
}

function psuOidc(env: Env): PsuOidcSetting | undefined {
  const issuer = url(env, 'PSU_OIDC_ISSUER', ['https:', 'http:']);
  const clientId = text(env, 'PSU_OIDC_CLIENT_ID');
  const clientSecret = text(env, 'PSU_OIDC_CLIENT_SECRET');
  if (issuer === undefined && clientId === undefined && clientSecret === undefined) return undefined;
  for (const [key, value] of [
    ['PSU_OIDC_ISSUER', issuer],
    ['PSU_OIDC_CLIENT_ID', clientId],
    ['PSU_OIDC_CLIENT_SECRET', clientSecret],
  ] as const) {
    if (value === undefined) throw new ConfigError(key, 'is required with the other PSU_OIDC_ settings');
  }
  return Object.freeze({
    issuer: issuer!,
    clientId: clientId!,
    clientSecret: clientSecret!,
    idClaim: text(env, 'PSU_OIDC_ID_CLAIM') ?? 'sub',
  });
}

function coreBanking(env: Env): CoreBankingSetting | undefined {
  const address = url(env, 'CORE_BANKING_URL', ['https:', 'http:']);
  if (address === undefined) return undefined;
  return Object.freeze({
    url: address.replace(/\/$/, ''),
    tls: clientTls(env, 'CORE_BANKING'),
    timeoutMs: integer(env, 'CORE_BANKING_TIMEOUT_MS', 5_000, 100, 120_000),
  });
}

function fxRates(env: Env, mode: Mode): FxRatesSetting {
  const raw = text(env, 'FX_RATES');
  const refreshMs = integer(env, 'FX_RATES_REFRESH_MS', 3_600_000, 1_000, 86_400_000);
  if (raw === undefined) {
    if (mode === 'live') {
      // The sandbox's fixed rates are no bank's rates.
      throw new ConfigError(
        'FX_RATES',
        'live mode needs a rate source: FX_RATES=/path/to/eurofxref.xml, FX_RATES=https://…, or FX_RATES=none (cross-currency payments refused)',
      );
    }
    return { kind: 'sandbox' };
  }
  if (raw === 'sandbox') {
    if (mode === 'live') throw new ConfigError('FX_RATES', "the sandbox's fixed rates are not for live mode");
    return { kind: 'sandbox' };
  }
  if (raw === 'none') return { kind: 'none' };
  if (/^https?:\/\//.test(raw))
    return Object.freeze({ kind: 'url', url: url(env, 'FX_RATES', ['https:', 'http:'])!, refreshMs });
  return Object.freeze({ kind: 'file', path: raw, refreshMs });
}

/** METRICS_PORT: a port other than PORT (0: any free one). */
function metricsPort(env: Env): number | undefined {
  if (text(env, 'METRICS_PORT') === undefined) return undefined;
  const port = integer(env, 'METRICS_PORT', 0, 0, 65535);
  if (port !== 0 && port === integer(env, 'PORT', 3000, 0, 65535))
    throw new ConfigError(
      'METRICS_PORT',
      `must differ from PORT (${port}): the metrics have their own listener`,
    );
  return port;
}

/**
 * The settings from the environment. `terminal`: whether stdout is a terminal, which decides the log's
 * format when LOG_FORMAT is unset (pretty for a person, JSON for a collector or a file).
 */
export function loadConfig(env: Env = process.env, terminal = process.stdout.isTTY === true): Config {
  const mode = oneOf<Mode>(env, 'MODE', ['sandbox', 'live'], 'sandbox');
  const tls = tlsFiles(env, mode);
  if (mode === 'live' && tls === undefined) {
    // Live, every TPP is known by its certificate: without mutual TLS nothing would tie a call to a TPP.
    throw new ConfigError('TLS_CERT', 'live mode needs TLS_CERT, TLS_KEY and TLS_CLIENT_CA (PEM files)');
  }
  if (mode === 'live' && text(env, 'DATABASE_URL') === undefined && text(env, 'DATA_DIR') === undefined) {
    // In memory, a restart would lose every onboarded TPP, app, consent and payment.
    throw new ConfigError(
      'DATABASE_URL',
      'live mode needs a database that outlives the process: set DATABASE_URL (PostgreSQL) or DATA_DIR (embedded, on disk)',
    );
  }
  const sandboxClientId = text(env, 'SANDBOX_CLIENT_ID');
  if (sandboxClientId !== undefined && !SANDBOX_CLIENT_ID.test(sandboxClientId)) {
    throw new ConfigError('SANDBOX_CLIENT_ID', 'must be a UUID without dashes (32 lower-case hex digits)');
  }
  const workers = integer(env, 'WORKERS', 1, 1, 64);
  if (workers > 1 && text(env, 'DATABASE_URL') === undefined) {
    // PGlite is one process's database: a second process cannot open it.
    throw new ConfigError(
      'WORKERS',
      'several workers need PostgreSQL: set DATABASE_URL, or WORKERS=1 with the embedded database',
    );
  }
  if (text(env, 'DATABASE_READ_URL') !== undefined && text(env, 'DATABASE_URL') === undefined) {
    // Standbys follow a PostgreSQL primary; PGlite has none.
    throw new ConfigError(
      'DATABASE_READ_URL',
      'standbys serve reads beside a PostgreSQL primary: set DATABASE_URL too, or unset DATABASE_READ_URL',
    );
  }
  const aliases = list(env, 'CLIENT_ID_HEADER_ALIASES');
  for (const name of aliases) {
    if (!HEADER_NAME.test(name))
      throw new ConfigError('CLIENT_ID_HEADER_ALIASES', `"${name}" is not a header name`);
  }
  const config: Config = {
    port: integer(env, 'PORT', 3000, 0, 65535),
    // The sandbox is a developer's tool: this machine only, unless HOST says otherwise (containers:
    // HOST=0.0.0.0). A live gateway is meant to be reached.
    host: text(env, 'HOST') ?? (mode === 'live' ? '0.0.0.0' : '127.0.0.1'),
    mode,
    basePath: basePath(env),
    authBasePaths: Object.freeze(authBasePaths(env, basePath(env))),
    trustProxy: oneOf(env, 'TRUST_PROXY', ['true', 'false'], 'false') === 'true',
    publicUrl: url(env, 'PUBLIC_URL', ['http:', 'https:'])?.replace(/\/$/, ''),
    // Several hosts without target_session_attrs: read-write (store/database/primary.ts, writerTarget).
    databaseUrl: databaseUrl(env, 'DATABASE_URL', ['read-write', 'primary', 'any']),
    // Standbys: any target (the gateway only reads there, and checks each one's lag itself).
    databaseReadUrl: databaseUrl(env, 'DATABASE_READ_URL'),
    databaseReadMaxLagMs: integer(env, 'DB_READ_MAX_LAG_MS', 1_000, 100, 600_000),
    dataDir: text(env, 'DATA_DIR'),
    logLevel: oneOf<LogLevel>(env, 'LOG_LEVEL', LOG_LEVELS, 'info'),
    logFormat: oneOf<LogFormat>(env, 'LOG_FORMAT', ['pretty', 'json'], terminal ? 'pretty' : 'json'),
    sandboxClientId,
    sandboxRedirectUri: url(env, 'SANDBOX_REDIRECT_URI', ['http:', 'https:']),
    clientIdHeaderAliases: Object.freeze(aliases.map((name) => name.toLowerCase())),
    timeZone: timeZone(env),
    bodyLimit: integer(env, 'BODY_LIMIT', 256 * 1024, 1024, 10 * 1024 * 1024),
    shutdownTimeoutMs: integer(env, 'SHUTDOWN_TIMEOUT_MS', 10_000, 100, 600_000),
    workers,
    databaseTimeouts: Object.freeze({
      connectMs: integer(env, 'DB_CONNECT_TIMEOUT_MS', 5_000, 100, 120_000),
      statementMs: integer(env, 'DB_STATEMENT_TIMEOUT_MS', 10_000, 100, 600_000),
    }),
    databasePoolSize: integer(env, 'DB_POOL_SIZE', 10, 1, 100),
    schedulerIntervalMs: integer(env, 'SCHEDULER_INTERVAL_MS', 60_000, 0, 86_400_000),
    availabilityFlushMs: integer(env, 'AVAILABILITY_FLUSH_MS', 5_000, 0, 600_000),
    auditSealIntervalMs: integer(env, 'AUDIT_SEAL_INTERVAL_MS', 1_000, 0, 3_600_000),
    notificationPollMs: integer(env, 'NOTIFICATION_POLL_MS', 1_000, 0, 3_600_000),
    notificationTimeoutMs: integer(env, 'NOTIFICATION_TIMEOUT_MS', 10_000, 1, 60_000),
    notificationInFlightPerApp: integer(env, 'NOTIFICATION_IN_FLIGHT_PER_APP', 4, 1, 100),
    auditRetentionDays:
      text(env, 'AUDIT_RETENTION_DAYS') === undefined
        ? undefined
        : integer(env, 'AUDIT_RETENTION_DAYS', 0, 1, 36_500),
    tls,
    seedTestData:
      oneOf(env, 'SEED_TEST_DATA', ['true', 'false'], mode === 'sandbox' ? 'true' : 'false') === 'true',
    eidProvider: eidProvider(env, mode),
    psuOidc: psuOidc(env),
    coreBanking: coreBanking(env),
    fxRates: fxRates(env, mode),
    rateLimits: Object.freeze({
      windowMs: integer(env, 'RATE_LIMIT_WINDOW_MS', 60_000, 1_000, 86_400_000),
      apiPerApp: integer(env, 'RATE_LIMIT_API_PER_APP', 6_000, 0, 100_000_000),
      apiPerAddress: integer(env, 'RATE_LIMIT_API_PER_ADDRESS', 6_000, 0, 100_000_000),
      authorizationPerApp: integer(env, 'RATE_LIMIT_AUTH_PER_APP', 1_200, 0, 100_000_000),
      authorizationPerAddress: integer(env, 'RATE_LIMIT_AUTH_PER_ADDRESS', 1_200, 0, 100_000_000),
      psuLoginPerAddress: integer(env, 'RATE_LIMIT_PSU_LOGIN_PER_ADDRESS', 300, 0, 100_000_000),
    }),
    redisUrl: url(env, 'REDIS_URL', ['redis:', 'rediss:']),
    metricsPort: metricsPort(env),
    metricsHost: text(env, 'METRICS_HOST') ?? '127.0.0.1',
    notificationSigningKeysRetired: Object.freeze(list(env, 'NOTIFICATION_SIGNING_KEYS_RETIRED')),
    // Last: a live start missing several settings names the others first.
    notificationSigningKey: notificationSigningKey(env, mode),
    auditKey: auditKey(env, mode),
  };
  return Object.freeze(config);
}

/** A config for tests and tools: the defaults with some settings replaced. */
export function configWith(overrides: Partial<Config>): Config {
  return Object.freeze({ ...loadConfig({}, false), ...overrides });
}
