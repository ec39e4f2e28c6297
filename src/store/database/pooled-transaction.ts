// Drizzle's transactions on a pg pool, made safe for a database that fails under them. Drizzle 0.45's
// NodePgSession.transaction checks a client out of the pool and sends BEGIN before the try/finally that
// releases it: a BEGIN that fails (a silent database past pg's query_timeout, a connection cut just
// after checkout) keeps the client checked out for good, and the pool's end() then waits for it
// forever. It also hands a client whose statement timed out back to the pool as healthy, so the next
// transaction inherits a connection still busy with the old statement. Upstream: drizzle-orm issues
// #6241 and #6114 (open). Remove this module once the release we use fixes both.
import { NodePgSession } from 'drizzle-orm/node-postgres';
import type pg from 'pg';
import { isDatabaseUnavailable } from './unavailable.ts';

type Transaction = NodePgSession<Record<string, never>, never>['transaction'];
interface SessionFields {
  readonly client: pg.Pool | pg.PoolClient | pg.Client;
  readonly dialect: unknown;
  readonly schema: unknown;
  readonly options: unknown;
}

const PATCHED = Symbol.for('psd2-gateway.pooledTransaction');

/**
 * Replaces NodePgSession.transaction, once per process, by one that takes the pool's client itself
 * and runs Drizzle's own transaction on it as on a single client (which checks nothing out and
 * releases nothing), then releases the client whatever happened: with the error when the database
 * failed under it, so that the pool destroys the connection instead of handing it out again.
 */
export function releaseClientsOfFailedTransactions(): void {
  const prototype = NodePgSession.prototype as unknown as Record<symbol, boolean> & {
    transaction: Transaction;
  };
  if (prototype[PATCHED] === true) return;
  const original = prototype.transaction;
  prototype.transaction = async function (this: SessionFields, transaction, config) {
    // Drizzle's own test of a pool (its read pools are named so too).
    if (!this.client.constructor.name.includes('Pool'))
      return original.call(this as never, transaction, config);
    const pool = this.client as pg.Pool;
    const client = await pool.connect();
    const Session = NodePgSession as unknown as new (...args: unknown[]) => NodePgSession<never, never>;
    const session = new Session(client, this.dialect, this.schema, this.options);
    let failure: unknown;
    try {
      return await original.call(session as never, transaction, config);
    } catch (error) {
      failure = error;
      throw error;
    } finally {
      client.release(
        failure !== undefined && isDatabaseUnavailable(failure) ? (failure as Error) : undefined,
      );
    }
  } as Transaction;
  prototype[PATCHED] = true;
}
