// What the PostgreSQL baselines share: a schema of their own with its pool, the ledger's tables, and the
// digest codes and tokens are kept under.
import { createHash, randomUUID } from 'node:crypto';
import pg from 'pg';

export const LEDGER_TABLES = `
  CREATE TABLE bookings (booking_id text PRIMARY KEY, payment_id text NOT NULL, booked_on date NOT NULL,
                         created_at timestamptz NOT NULL);
  CREATE TABLE ledger_entries (entry_id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                               booking_id text NOT NULL, ledger_account text NOT NULL,
                               currency text NOT NULL, amount_minor bigint NOT NULL);`;

/**
 * A pool of 20 (the gateway's in the bench) on a schema of its own with `tables`; with `accountIds`, an
 * accounts table (account_id, balance_minor) holding them. Its close drops the schema.
 */
export async function rawSchema(
  databaseUrl: string,
  tables: string,
  accountIds?: readonly string[],
): Promise<{ pool: pg.Pool; close: () => Promise<void> }> {
  const schema = `bench_raw_${randomUUID().replaceAll('-', '').slice(0, 10)}`;
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 20, options: `-c search_path=${schema}` });
  await pool.query(`CREATE SCHEMA ${schema}`);
  await pool.query(tables);
  if (accountIds !== undefined) {
    await pool.query('CREATE TABLE accounts (account_id text PRIMARY KEY, balance_minor bigint NOT NULL)');
    await pool.query(
      'INSERT INTO accounts SELECT id, 1250000000 FROM unnest($1::text[]) AS id ON CONFLICT DO NOTHING',
      [[...accountIds]],
    );
  }
  return {
    pool,
    async close() {
      await pool.query(`DROP SCHEMA ${schema} CASCADE`);
      await pool.end();
    },
  };
}

export const digest = (secret: string) => createHash('sha256').update(secret).digest('base64url');
