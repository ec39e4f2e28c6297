// A PostgreSQL database of its own, for tests that run the gateway as a process (which takes
// DATABASE_URL and no schema): created on the server TEST_DATABASE_URL names, dropped afterwards.
import { randomBytes } from 'node:crypto';
import pg from 'pg';

export interface FreshDatabase {
  readonly name: string;
  /** DATABASE_URL for the gateway. */
  readonly url: string;
  /** Rows of one query, on a connection of its own. */
  query<T = Record<string, unknown>>(text: string, values?: unknown[]): Promise<T[]>;
  drop(): Promise<void>;
}

async function withClient<T>(url: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

export async function createFreshDatabase(serverUrl: string): Promise<FreshDatabase> {
  const name = `r_${randomBytes(6).toString('hex')}`;
  await withClient(serverUrl, (client) => client.query(`CREATE DATABASE ${name}`));
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    name,
    url: url.href,
    query: <T>(text: string, values: unknown[] = []) =>
      withClient(url.href, async (client) => (await client.query(text, values)).rows as T[]),
    // FORCE: a gateway killed with -9 may leave its connections open for a moment.
    drop: () =>
      withClient(serverUrl, (client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).then(
        () => undefined,
      ),
  };
}
