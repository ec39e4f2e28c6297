// Why the database could not be opened at start, in words an operator can act on: which setting, what
// is wrong, what to do. Never the password, never a stack trace (main.ts prints the line and exits).

import { parseDatabaseHosts } from './database/hosts.ts';
import { hostName, NoSuitableHostError } from './database/primary.ts';
import { ReadUrlError } from './database/replicas.ts';

/** What failed, the setting that names it, and what to do. */
export interface OpenFailure {
  readonly setting: 'DATABASE_URL' | 'DATABASE_READ_URL' | 'DATA_DIR' | 'DB_CONNECT_TIMEOUT_MS';
  readonly text: string;
}

interface Where {
  readonly databaseUrl?: string | undefined;
  readonly dataDir?: string | undefined;
  readonly connectMs: number;
}

/** The first code (Node's or PostgreSQL's SQLSTATE) on the error, its cause or the errors it aggregates. */
function codeOf(error: unknown, depth = 0): string | undefined {
  if (!(error instanceof Error) || depth > 4) return undefined;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') return code;
  for (const inner of (error as { errors?: unknown[] }).errors ?? []) {
    const found = codeOf(inner, depth + 1);
    if (found !== undefined) return found;
  }
  return codeOf(error.cause, depth + 1);
}

/** The servers (all of a multi-host URL's), the user and the database a failure is about. */
function postgresTarget(databaseUrl: string) {
  const { hosts, urlFor } = parseDatabaseHosts(databaseUrl);
  const url = new URL(urlFor(hosts[0]!));
  return {
    server: hosts.map(hostName).join(', '),
    host: hosts.map((host) => host.host).join(', '),
    user: decodeURIComponent(url.username) || 'the default user',
    database: decodeURIComponent(url.pathname.slice(1)) || decodeURIComponent(url.username) || 'postgres',
  };
}

/** The failure explained, or undefined when it is none of the known ones (a bug: it keeps its stack). */
export function explainOpenFailure(error: unknown, where: Where): OpenFailure | undefined {
  // The standbys' host list is read when the store opens (config.ts checks its scheme alone).
  if (error instanceof ReadUrlError) return { setting: 'DATABASE_READ_URL', text: error.message };
  const code = codeOf(error);
  if (where.databaseUrl === undefined) {
    if (where.dataDir === undefined) return undefined;
    const dir = where.dataDir;
    if (code === 'EACCES' || code === 'EPERM' || code === 'EROFS')
      return {
        setting: 'DATA_DIR',
        text: `this process may not write to ${dir}; give it a directory it owns`,
      };
    if (code === 'ENOTDIR' || code === 'EEXIST')
      return {
        setting: 'DATA_DIR',
        text: `${dir} is not a directory; name a directory (it is made if missing)`,
      };
    return undefined;
  }
  const { server, host, user, database } = postgresTarget(where.databaseUrl);
  // Several hosts and none takes writes: what each one said (no URL, no password in it).
  if (error instanceof NoSuitableHostError)
    return {
      setting: 'DATABASE_URL',
      text: `${error.message}; start or promote a primary, or correct the hosts`,
    };
  switch (code) {
    case 'ECONNREFUSED':
      return {
        setting: 'DATABASE_URL',
        text: `nothing accepts connections at ${server} (connection refused); start PostgreSQL there or correct the host and port`,
      };
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return { setting: 'DATABASE_URL', text: `the host ${host} is unknown; correct the host` };
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return {
        setting: 'DATABASE_URL',
        text: `${server} cannot be reached from here; check the host and the network`,
      };
    case '28P01':
      return {
        setting: 'DATABASE_URL',
        text: `PostgreSQL at ${server} refused the password of user "${user}"; correct the user or the password`,
      };
    case '28000':
      return {
        setting: 'DATABASE_URL',
        text: `PostgreSQL at ${server} refused user "${user}" (no such role, or pg_hba.conf does not let it in from here); create the role or correct the user`,
      };
    case '3D000':
      return {
        setting: 'DATABASE_URL',
        text: `the database "${database}" does not exist at ${server}; create it (createdb ${database}) or correct its name`,
      };
    case '42501':
      return {
        setting: 'DATABASE_URL',
        text: `user "${user}" may not create the gateway's tables in "${database}"; grant it CREATE on the database, or run psd2-gateway migrate as the owner first`,
      };
    case '53300':
      return {
        setting: 'DATABASE_URL',
        text: `PostgreSQL at ${server} has no connection slot left (too many clients); raise max_connections or stop other clients`,
      };
    case '57P03':
      return {
        setting: 'DATABASE_URL',
        text: `PostgreSQL at ${server} is starting up or shutting down; start again when it accepts connections`,
      };
  }
  const message = error instanceof Error ? error.message : '';
  if (
    code === 'ETIMEDOUT' ||
    /timeout exceeded when trying to connect|Connection terminated due to connection timeout/.test(message)
  )
    return {
      setting: 'DB_CONNECT_TIMEOUT_MS',
      text: `${server} (DATABASE_URL) did not answer within ${where.connectMs} ms; check that PostgreSQL runs there and that the network lets the connection through`,
    };
  if (code === 'ECONNRESET' || /^Connection terminated/.test(message))
    return {
      setting: 'DATABASE_URL',
      text: `${server} closed the connection at once; check that it is PostgreSQL (and its TLS settings, e.g. sslmode in the URL)`,
    };
  return undefined;
}
