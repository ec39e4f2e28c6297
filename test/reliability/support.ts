// The reliability suite's shared parts: the gateway as a process on a database of its own, a payment
// load that records every answer it was given, and the checks of what the database holds afterwards.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { TppClient } from '@psd2-gateway/client';
import { TRANSITIONS } from '../../src/domain/payment.ts';
import type { FreshDatabase } from '../helpers/fresh-database.ts';
import { TEST_DATABASE_URL } from '../helpers/gateway.ts';
import { domestic } from '../helpers/payments.ts';
import { queryOn } from '../helpers/pg-cluster.ts';
import { type ServeProcess, spawnServe } from '../helpers/serve-process.ts';

export const RELIABILITY_DATABASE_URL = TEST_DATABASE_URL;

/** Says plainly why a PostgreSQL part of the suite does not run; true when it does. */
export function needsPostgres(what: string): boolean {
  if (RELIABILITY_DATABASE_URL !== undefined) return true;
  console.log(`# reliability: ${what} skipped: TEST_DATABASE_URL is not set (PostgreSQL)`);
  return false;
}

export const PRODUCT = 'handelsbanken-domestic-credit-transfer';
export const INITIATE = `/psd2/se/v2/payments/private/single/${PRODUCT}`;
export const STATUSES = Object.keys(TRANSITIONS);

/**
 * Settings of a gateway under load: the rate limits off (the load comes from one address and one app,
 * on purpose), the scheduler off (the test decides when bookings are recovered).
 */
export const UNLIMITED = {
  RATE_LIMIT_API_PER_APP: '0',
  RATE_LIMIT_API_PER_ADDRESS: '0',
  RATE_LIMIT_AUTH_PER_APP: '0',
  RATE_LIMIT_AUTH_PER_ADDRESS: '0',
  RATE_LIMIT_PSU_LOGIN_PER_ADDRESS: '0',
  SCHEDULER_INTERVAL_MS: '0',
};

/** Database timeouts of a gateway whose database goes under load: a dead server's calls fail fast. */
export const FAST_DATABASE = { connectMs: 500, statementMs: 1_000 } as const;
export const FAST_DATABASE_SETTINGS = {
  DB_CONNECT_TIMEOUT_MS: String(FAST_DATABASE.connectMs),
  DB_STATEMENT_TIMEOUT_MS: String(FAST_DATABASE.statementMs),
};
/**
 * The longest an initiation may take with those: three statements one after another, each within its
 * bound and the driver's slack (1 s): the debtor account's read (on a cache miss; a read whose
 * connection dies is run once more, which a blackhole does not cause), the batch in flight that its
 * INSERT waits behind, and its own batch; the wait for a connection; and a margin for a loaded machine.
 */
export const ANSWER_BOUND_MS = 3 * (FAST_DATABASE.statementMs + 1_000) + FAST_DATABASE.connectMs + 1_000;

/** `psd2-gateway serve` on a database, ready; its URL and a client of its sandbox app. */
export async function serveOn(databaseUrl: string, env: Record<string, string> = {}) {
  const process = spawnServe({ ...UNLIMITED, DATABASE_URL: databaseUrl, ...env });
  try {
    const [ready] = await process.ready();
    const url = String(ready?.url);
    const data = (await (await fetch(`${url}/sandbox/test-data`)).json()) as {
      app: { clientId: string; redirectUri: string };
    };
    return { process, url, client: new TppClient(url, data.app.clientId, data.app.redirectUri) };
  } catch (error) {
    await process.kill();
    throw error;
  }
}
export type Served = Awaited<ReturnType<typeof serveOn>>;

/** What one payment of the load was answered. */
export interface PaymentRecord {
  readonly requestId: string;
  /** The initiation's status, or the transport error's text. */
  initiated?: number | string;
  /** The initiation's answer when it was not 200, and its Connection header. */
  refusal?: { body: unknown; connection: string | null };
  paymentId?: string;
  psuToken?: string;
  /** The execution's status and transactionStatus, or the transport error's text. */
  executed?: { status: number; transactionStatus?: string } | string;
}

/** Why a request got no answer (a connection refused or cut): the cause's code or message. */
export function transportError(error: unknown): string {
  let cause = error as { cause?: unknown; code?: string; message?: string } | undefined;
  while (cause?.cause !== undefined) cause = cause.cause as typeof cause;
  return String(cause?.code ?? cause?.message ?? error);
}

/**
 * `workers` clients initiate, authorize and execute payments until `stop()` says so or `boundMs`
 * passes; each payment's answers are recorded. A worker stops at its first answer-less request.
 */
export async function paymentLoad(
  client: TppClient,
  token: string,
  options: { workers: number; boundMs: number; stop: () => boolean; execute: boolean },
): Promise<PaymentRecord[]> {
  const records: PaymentRecord[] = [];
  const until = Date.now() + options.boundMs;
  const worker = async () => {
    while (!options.stop() && Date.now() < until) {
      const record: PaymentRecord = { requestId: randomUUID() };
      records.push(record);
      try {
        const initiated = await client.initiate(token, {
          path: INITIATE,
          body: domestic({ instructedAmount: { currency: 'SEK', amount: '1.25' } }),
          headers: { 'TPP-Request-ID': record.requestId },
        });
        record.initiated = initiated.status;
        if (initiated.status !== 200) {
          record.refusal = { body: initiated.body, connection: initiated.headers.get('connection') };
          continue;
        }
        record.paymentId = initiated.body.paymentId;
        if (!options.execute) continue;
        record.psuToken = (await client.authorizeScope(`PIS:${record.paymentId}`)).access_token;
        const executed = await client.execute(PRODUCT, record.paymentId, record.psuToken);
        record.executed = {
          status: executed.status,
          transactionStatus: (executed.body as { transactionStatus?: string }).transactionStatus,
        };
      } catch (error) {
        const text = transportError(error);
        if (record.initiated === undefined) record.initiated = text;
        else if (record.paymentId !== undefined && record.psuToken !== undefined) record.executed = text;
        return;
      }
    }
  };
  await Promise.all(Array.from({ length: options.workers }, worker));
  return records;
}

/** What the checks read: rows of one query at a time. */
export type Queryable = Pick<FreshDatabase, 'query'>;

/** A database by its URL, each query on a connection of its own: a server read directly. */
export function databaseAt(url: string): Queryable {
  return { query: (text, values) => queryOn(url, text, values) };
}

/** The ledger's invariants: every booking and every currency balanced, no payment booked twice. */
export async function assertLedgerSound(db: Queryable): Promise<void> {
  const unbalanced = await db.query(
    `SELECT booking_id, currency, sum(amount_minor)::text AS total FROM ledger_entries
      GROUP BY booking_id, currency HAVING sum(amount_minor) <> 0`,
  );
  assert.deepEqual(unbalanced, [], 'every booking sums to zero in each currency');
  const totals = await db.query(
    'SELECT currency, sum(amount_minor)::text AS total FROM ledger_entries GROUP BY currency HAVING sum(amount_minor) <> 0',
  );
  assert.deepEqual(totals, [], 'debits equal credits in each currency');
  const twice = await db.query(
    `SELECT payment_id, count(*)::int AS bookings FROM bookings WHERE payment_id IS NOT NULL
      GROUP BY payment_id HAVING count(*) > 1`,
  );
  assert.deepEqual(twice, [], 'no payment booked twice');
  // Settled: booked exactly once. Booked but not settled: only while its booking is marked under way
  // (the process died between the ledger's answer and recording it; the recovery finishes it).
  const mismatched = await db.query(
    `SELECT p.payment_id, p.status, p.booking_key, count(b.booking_id)::int AS bookings
       FROM payments p LEFT JOIN bookings b ON b.payment_id = p.payment_id
      GROUP BY p.payment_id, p.status, p.booking_key
     HAVING (p.status IN ('ACCC', 'ACSC') AND count(b.booking_id) <> 1)
         OR (p.status NOT IN ('ACCC', 'ACSC') AND count(b.booking_id) > 0 AND p.booking_key IS NULL)`,
  );
  assert.deepEqual(mismatched, [], 'settled payments booked once, others not at all');
}

/** Every acknowledged payment, read through the API: its status, one the state machine knows. */
export async function readAcknowledged(served: Served, token: string, records: readonly PaymentRecord[]) {
  const statuses = new Map<string, string>();
  for (const record of records) {
    if (record.paymentId === undefined) continue;
    const answer = await served.client.status(PRODUCT, record.paymentId, token, 'SE');
    assert.equal(answer.status, 200, `${record.paymentId}: ${JSON.stringify(answer.body)}`);
    const status = answer.body.transactionStatus;
    assert.ok(STATUSES.includes(status), `${record.paymentId}: ${status}`);
    statuses.set(record.paymentId, status);
  }
  return statuses;
}

/** One request a load sent: when, how long it took, and its answer, or why there was none. */
export interface Exchange {
  readonly method: string;
  readonly path: string;
  readonly startedAt: number;
  readonly tookMs: number;
  /** The status, or undefined when the request got no answer (`error` says why). */
  readonly status?: number;
  readonly retryAfter?: string | null;
  /** The error body's code: its first tppMessages code or the OAuth error. */
  readonly code?: string;
  readonly error?: string;
}

/** A TPP client that keeps every request it sends and what it was answered (or that nothing was). */
export class RecordingClient extends TppClient {
  readonly exchanges: Exchange[] = [];

  protected override async send(
    url: string,
    init: { method: string; headers: Record<string, string>; body: string | undefined },
  ): Promise<{ status: number; headers: Headers; text: string }> {
    const startedAt = Date.now();
    const path = new URL(url).pathname;
    try {
      const answer = await super.send(url, init);
      this.exchanges.push({
        method: init.method,
        path,
        startedAt,
        tookMs: Date.now() - startedAt,
        status: answer.status,
        retryAfter: answer.headers.get('retry-after'),
        code: errorCode(answer.text),
      });
      return answer;
    } catch (error) {
      this.exchanges.push({
        method: init.method,
        path,
        startedAt,
        tookMs: Date.now() - startedAt,
        error: transportError(error),
      });
      throw error;
    }
  }
}

/** The code of an error body (API or OAuth shape), or undefined. */
function errorCode(text: string): string | undefined {
  try {
    const body = JSON.parse(text) as { tppMessages?: { code?: string }[]; error?: string };
    return body.tppMessages?.[0]?.code ?? body.error;
  } catch {
    return undefined;
  }
}

export type { ServeProcess };

/** How soon after the database is back the gateway must serve again. */
export const RECOVERY_BOUND_MS = 10_000;
