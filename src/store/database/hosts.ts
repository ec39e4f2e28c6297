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

/** `h1:5432` or `[::1]:5433` or `h1` (5432). */
function hostOf(text: string, url: string): DatabaseHost {
  const match = /^(\[[^\]]+\]|[^:]*)(?::(\d{1,5}))?$/.exec(text);
  const host = match?.[1];
  const port = match?.[2] === undefined ? 5432 : Number(match[2]);
  if (host === undefined || host === '' || port < 1 || port > 65_535)
    throw new Error(`${redacted(url)}: the host "${text}" is not host[:port]`);
  return { host: host.startsWith('[') ? host.slice(1, -1) : host, port };
}

/** The URL with its password replaced, for an error message. */
export function redacted(url: string): string {
  return url.replace(/^(postgres(?:ql)?:\/\/[^:@/]*:)[^@/]*@/, '$1***@');
}

/**
 * The hosts of a database URL and what sessions it asks for. A string that is not a postgres:// URL
 * (a socket path, a key=value string) is one "host" passed to the driver as it is.
 */
export function parseDatabaseHosts(url: string): DatabaseHosts {
  const match = URL_FORM.exec(url);
  if (match === null) return { hosts: [{ host: '', port: 0 }], target: undefined, urlFor: () => url };
  const [, scheme = '', user = '', hostList = '', rest = ''] = match;
  const hosts =
    hostList === '' ? [{ host: 'localhost', port: 5432 }] : hostList.split(',').map((h) => hostOf(h, url));
  const query = rest.indexOf('?');
  const params = new URLSearchParams(query < 0 ? '' : rest.slice(query + 1));
  const given = params.get('target_session_attrs') ?? undefined;
  if (given !== undefined && !TARGETS.has(given))
    throw new Error(`${redacted(url)}: target_session_attrs must be one of ${[...TARGETS].join(', ')}`);
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
