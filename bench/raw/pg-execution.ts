// raw pg: an execution as one `pg` transaction doing the same booking as the gateway's (the payment's
// status, the debtor's balance, the booking and its two ledger entries), on tables of its own.
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { listenRaw, type Target } from '../common.ts';
import { echo, fail, send, UUID } from './http.ts';
import { LEDGER_TABLES, rawSchema } from './pg-schema.ts';

export interface RawPg extends Target {
  /** Payments for the next round: these ids, awaiting execution, from these debtors to these creditors. */
  prepare(payments: readonly { paymentId: string; debtor: string; creditor: string }[]): Promise<void>;
}

/**
 * raw pg on `databaseUrl`, in a schema of its own: accounts (id, balance), payments (id, debtor,
 * creditor, amount, status), bookings and ledger entries. An execution (PUT .../{paymentId}) is one
 * transaction: the payment from ACTC to ACCC (its row locked), the debtor's balance down if it covers
 * the amount (its row locked), the creditor's up, the booking, its two entries; 7 statements in all.
 */
export async function rawPgServer(databaseUrl: string, accountIds: readonly string[]): Promise<RawPg> {
  const { pool, close } = await rawSchema(
    databaseUrl,
    `CREATE TABLE payments (payment_id text PRIMARY KEY, debtor text NOT NULL, creditor text NOT NULL,
                            amount_minor bigint NOT NULL, status text NOT NULL);
     ${LEDGER_TABLES}`,
    accountIds,
  );
  const execute = async (paymentId: string): Promise<string | undefined> => {
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      const payment = await client.query<{ debtor: string; creditor: string; amount_minor: string }>({
        name: 'raw_payment',
        text: "UPDATE payments SET status = 'ACCC' WHERE payment_id = $1 AND status = 'ACTC' RETURNING debtor, creditor, amount_minor",
        values: [paymentId],
      });
      const row = payment.rows[0];
      if (row === undefined) {
        await client.query('ROLLBACK');
        return undefined;
      }
      const debited = await client.query({
        name: 'raw_debit',
        text: 'UPDATE accounts SET balance_minor = balance_minor - $2 WHERE account_id = $1 AND balance_minor >= $2',
        values: [row.debtor, row.amount_minor],
      });
      if (debited.rowCount !== 1) {
        await client.query('ROLLBACK');
        return 'RJCT';
      }
      await client.query({
        name: 'raw_credit',
        text: 'UPDATE accounts SET balance_minor = balance_minor + $2 WHERE account_id = $1',
        values: [row.creditor, row.amount_minor],
      });
      const bookingId = randomUUID();
      await client.query({
        name: 'raw_booking',
        text: 'INSERT INTO bookings VALUES ($1, $2, current_date, now())',
        values: [bookingId, paymentId],
      });
      await client.query({
        name: 'raw_entries',
        text: "INSERT INTO ledger_entries (booking_id, ledger_account, currency, amount_minor) VALUES ($1, $2, 'SEK', -$4::bigint), ($1, $3, 'SEK', $4::bigint)",
        values: [bookingId, row.debtor, row.creditor, row.amount_minor],
      });
      await client.query('COMMIT');
      return 'ACCC';
    } catch (error) {
      await client.query('ROLLBACK');
      throw error;
    } finally {
      client.release();
    }
  };
  const server: Server = createServer((request, response) => {
    request.resume();
    echo(request, response);
    request.on('end', () => {
      const paymentId = (request.url ?? '').split('/').at(-1)!;
      if (request.method !== 'PUT' || !UUID.test(paymentId) || !request.headers.authorization) {
        fail(response, 400, 'FORMAT_ERROR', 'PUT .../{paymentId} with a token');
        return;
      }
      execute(paymentId).then(
        (status) =>
          status === undefined
            ? fail(response, 400, 'PAYMENT_FAILED', 'The payment is not awaiting execution')
            : send(response, 200, { paymentId, transactionStatus: status }),
        (error: unknown) => fail(response, 500, 'INTERNAL', String(error)),
      );
    });
  });
  const target = await listenRaw(server);
  return {
    ...target,
    clientId: 'raw pg',
    async prepare(payments) {
      await pool.query(
        `INSERT INTO payments SELECT p.id, p.debtor, p.creditor, 12550, 'ACTC'
           FROM unnest($1::text[], $2::text[], $3::text[]) AS p(id, debtor, creditor)`,
        [payments.map((p) => p.paymentId), payments.map((p) => p.debtor), payments.map((p) => p.creditor)],
      );
    },
    async close() {
      await target.close();
      await close();
    },
  };
}
