// A PostgreSQL URL in libpq's multi-host form (`postgres://u@h1:5432,h2:5433/bank?target_session_attrs=
// read-write`), which the `pg` driver does not take (it connects to one host): the hosts in their order,
// the session attributes asked for, and the URL of one host for the driver.

/** libpq's target_session_attrs values. */
export type TargetSessionAttrs =
  | 'any'
  | 'read-write'
  | 'read-only'
  | 'primary'
  | 'standby'
  | 'prefer-standby';
const TARGETS: ReadonlySet<string> = new Set([
  'any',
  'read-write',
  'read-only',
  'primary',
  'standby',
  'prefer-standby',
]);

export interface DatabaseHost {
  readonly host: string;
  readonly port: number;
}

export interface DatabaseHosts {
  readonly hosts: readonly DatabaseHost[];
  /** target_session_attrs as given, or undefined (libpq's default is `any`). */
  readonly target: TargetSessionAttrs | undefined;
  /** The URL of one host, without target_session_attrs: what `pg` is given. */
  urlFor(host: DatabaseHost): string;
}

const URL_FORM = /^(postgres(?:ql)?:\/\/)([^@/?#]*@)?([^/?#]*)(.*)$/;

/**
 * Why a URL's host list does not parse. Neither the URL nor the host's text is repeated: a password with
 * an unencoded `@`, `/` or `#` moves the parse, and the "host" it yields holds part of the password.
 */
const HOST_LIST_HINT =
  'is not host[:port] (a list is host:port,host:port; percent-encode @ : / ? # in the user name and password)';

/** `h1:5432`, `[::1]:5433` or `h1` (5432): a name or address, never `@`, a space or the like. */
function hostOf(text: string, index: number): DatabaseHost {
  const match = /^(\[[0-9A-Fa-f:.]+\]|[\w.%~-]+)(?::(\d{1,5}))?$/.exec(text);
  const host = match?.[1];
  const port = match?.[2] === undefined ? 5432 : Number(match[2]);
  if (host === undefined || port < 1 || port > 65_535)
    throw new Error(`host ${index + 1} of the URL ${HOST_LIST_HINT}`);
  return { host: host.startsWith('[') ? host.slice(1, -1) : host, port };
}

/**
 * The hosts of a database URL and what sessions it asks for. A string that is not a postgres:// URL
 * (a socket path, a key=value string) is one "host" passed to the driver as it is.
 */
export function parseDatabaseHosts(url: string): DatabaseHosts {
  const match = URL_FORM.exec(url);
  if (match === null) return { hosts: [{ host: '', port: 0 }], target: undefined, urlFor: () => url };
  const [, scheme = '', user = '', hostList = '', rest = ''] = match;
  const hosts = hostList === '' ? [{ host: 'localhost', port: 5432 }] : hostList.split(',').map(hostOf);
  const query = rest.indexOf('?');
  const params = new URLSearchParams(query < 0 ? '' : rest.slice(query + 1));
  const given = params.get('target_session_attrs') ?? undefined;
  if (given !== undefined && !TARGETS.has(given))
    throw new Error(`target_session_attrs must be one of ${[...TARGETS].join(', ')}`);
  params.delete('target_session_attrs');
  const path = query < 0 ? rest : rest.slice(0, query);
  const search = params.size === 0 ? '' : `?${params.toString()}`;
  return {
    hosts,
    target: given as TargetSessionAttrs | undefined,
    urlFor: ({ host, port }) =>
      `${scheme}${user}${host.includes(':') ? `[${host}]` : host}:${port}${path}${search}`,
  };
}
