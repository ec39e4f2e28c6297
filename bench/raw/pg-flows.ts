// raw(work) storing its flows: every step of the five-step flow in PostgreSQL as the gateway keeps it,
// instead of raw(work)'s Maps.
import { randomUUID } from 'node:crypto';
import { BATCH_LIMITS, Coalescer } from '../../src/store/coalescer.ts';
import { token } from './http.ts';
import { digest, LEDGER_TABLES, rawSchema } from './pg-schema.ts';
import type { RawFlows, RawInitiation } from './work-data.ts';

/**
 * Where raw(work) keeps its flows on PostgreSQL (a schema of its own): `accounts` names the account
 * numbers the payments debit and credit. Initiations, codes, exchanges and status reads each share a
 * statement and a commit between concurrent requests (the gateway's own limits, src/store/coalescer.ts);
 * an execution is raw pg's booking with the token checked first, in one statement.
 */
export async function rawPgFlows(
  databaseUrl: string,
  accounts: readonly string[],
): Promise<{
  keep: (initiation: RawInitiation) => Promise<void>;
  flows: RawFlows;
  close: () => Promise<void>;
}> {
  const { pool, close } = await rawSchema(
    databaseUrl,
    `CREATE TABLE payments (payment_id text PRIMARY KEY, client_id text NOT NULL, request_id text NOT NULL,
                            debtor text NOT NULL, creditor text NOT NULL, amount_minor bigint NOT NULL,
                            status text NOT NULL, answer jsonb NOT NULL,
                            created_at timestamptz NOT NULL DEFAULT now(), UNIQUE (client_id, request_id));
     CREATE TABLE codes (code_hash text PRIMARY KEY, client_id text NOT NULL, scope text NOT NULL,
                         expires_at timestamptz NOT NULL, used boolean NOT NULL DEFAULT false);
     CREATE TABLE tokens (token_hash text PRIMARY KEY, client_id text NOT NULL, scope text NOT NULL,
                          expires_at timestamptz NOT NULL);
     ${LEDGER_TABLES}`,
    accounts,
  );
  const initiations = new Coalescer<RawInitiation, undefined>(
    async (items) => {
      const bodies = items.map((item) => item.body as Record<string, Record<string, string>>);
      await pool.query({
        name: 'raw_flow_initiations',
        text: `INSERT INTO payments (payment_id, client_id, request_id, debtor, creditor, amount_minor, status, answer)
               SELECT p, c, r, d, k, a, 'ACTC', x
                 FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::bigint[], $7::jsonb[])
                   AS t (p, c, r, d, k, a, x)`,
        values: [
          items.map((item) => item.paymentId),
          items.map((item) => item.clientId),
          items.map((item) => item.requestId),
          bodies.map((body) => body.debtorAccount!.value),
          bodies.map((body) => body.creditorAccount!.value),
          bodies.map((body) => Math.round(Number(body.instructedAmount!.amount) * 100)),
          items.map((item) => JSON.stringify(item.answer)),
        ],
      });
      return items.map(() => undefined);
    },
    { ...BATCH_LIMITS, key: (item) => `${item.clientId}\n${item.requestId}` },
  );
  // A code only for a payment of the app awaiting authorization: checked by the INSERT itself.
  const codes = new Coalescer<{ hash: string; clientId: string; scope: string }, boolean>(async (items) => {
    const issued = await pool.query<{ code_hash: string }>({
      name: 'raw_flow_codes',
      text: `INSERT INTO codes (code_hash, client_id, scope, expires_at)
             SELECT h, c, s, now() + interval '5 minutes' FROM unnest($1::text[], $2::text[], $3::text[]) AS t (h, c, s)
               JOIN payments p ON p.payment_id = substr(s, 5) AND p.client_id = c AND p.status = 'ACTC'
              WHERE s LIKE 'PIS:%'
             RETURNING code_hash`,
      values: [
        items.map((item) => item.hash),
        items.map((item) => item.clientId),
        items.map((item) => item.scope),
      ],
    });
    const hashes = new Set(issued.rows.map((row) => row.code_hash));
    return items.map((item) => hashes.has(item.hash));
  }, BATCH_LIMITS);
  const exchanges = new Coalescer<{ code: string; token: string; clientId: string }, boolean>(
    async (items) => {
      const issued = await pool.query<{ token_hash: string }>({
        name: 'raw_flow_exchanges',
        text: `WITH used AS (
                 UPDATE codes c SET used = true
                   FROM unnest($1::text[], $2::text[], $3::text[]) AS w (code, token, client)
                  WHERE c.code_hash = w.code AND c.client_id = w.client AND NOT c.used AND c.expires_at > now()
                 RETURNING w.token, c.client_id, c.scope)
               INSERT INTO tokens (token_hash, client_id, scope, expires_at)
               SELECT token, client_id, scope, now() + interval '15 minutes' FROM used RETURNING token_hash`,
        values: [
          items.map((item) => item.code),
          items.map((item) => item.token),
          items.map((item) => item.clientId),
        ],
      });
      const tokens = new Set(issued.rows.map((row) => row.token_hash));
      return items.map((item) => tokens.has(item.token));
    },
    { ...BATCH_LIMITS, key: (item) => item.code },
  );
  const statuses = new Coalescer<{ paymentId: string; clientId: string }, string | undefined>(
    async (items) => {
      const found = await pool.query<{ payment_id: string; client_id: string; status: string }>({
        name: 'raw_flow_statuses',
        text: 'SELECT payment_id, client_id, status FROM payments WHERE payment_id = ANY ($1::text[])',
        values: [items.map((item) => item.paymentId)],
      });
      const byId = new Map(found.rows.map((row) => [row.payment_id, row]));
      return items.map((item) => {
        const row = byId.get(item.paymentId);
        return row?.client_id === item.clientId ? row.status : undefined;
      });
    },
    BATCH_LIMITS,
  );
  // One statement and one round trip per execution (its own transaction): the app's token checked, the
  // payment locked, the debit only when the balance covers it, then the credit, the payment's move, the
  // booking and its two entries, each only when the step before it happened.
  const execute: RawFlows['execute'] = async (paymentId, token, clientId) => {
    const result = await pool.query<{ granted: boolean; waiting: boolean; debited: boolean }>({
      name: 'raw_flow_execute',
      text: `WITH granted AS (
               SELECT 1 FROM tokens
                WHERE token_hash = $1 AND scope = 'PIS:' || $2 AND client_id = $4 AND expires_at > now()),
             waiting AS (
               SELECT payment_id, debtor, creditor, amount_minor FROM payments
                WHERE payment_id = $2 AND status = 'ACTC' AND EXISTS (SELECT 1 FROM granted) FOR UPDATE),
             debited AS (
               UPDATE accounts a SET balance_minor = a.balance_minor - w.amount_minor FROM waiting w
                WHERE a.account_id = w.debtor AND a.balance_minor >= w.amount_minor
               RETURNING w.payment_id, w.debtor, w.creditor, w.amount_minor),
             credited AS (
               UPDATE accounts a SET balance_minor = a.balance_minor + d.amount_minor FROM debited d
                WHERE a.account_id = d.creditor RETURNING 1),
             moved AS (
               UPDATE payments p SET status = CASE WHEN EXISTS (SELECT 1 FROM debited) THEN 'ACCC' ELSE 'RJCT' END
                 FROM waiting w WHERE p.payment_id = w.payment_id RETURNING 1),
             booked AS (
               INSERT INTO bookings SELECT $3, payment_id, current_date, now() FROM debited RETURNING 1),
             entries AS (
               INSERT INTO ledger_entries (booking_id, ledger_account, currency, amount_minor)
               SELECT $3, e.account, 'SEK', e.amount FROM debited d,
                      LATERAL (VALUES (d.debtor, -d.amount_minor), (d.creditor, d.amount_minor)) AS e (account, amount)
               RETURNING 1)
           SELECT EXISTS (SELECT 1 FROM granted) AS granted, EXISTS (SELECT 1 FROM waiting) AS waiting,
                  EXISTS (SELECT 1 FROM debited) AS debited`,
      values: [digest(token), paymentId, randomUUID(), clientId],
    });
    const { granted, waiting, debited } = result.rows[0]!;
    return !granted ? 'token' : !waiting ? 'not waiting' : debited ? 'ACCC' : 'RJCT';
  };
  return {
    keep: (initiation) => initiations.submit(initiation),
    flows: {
      async issueCode(clientId, scope) {
        const code = token();
        return (await codes.submit({ hash: digest(code), clientId, scope })) ? code : undefined;
      },
      async exchange(code, clientId) {
        const issued = token();
        return (await exchanges.submit({ code: digest(code), token: digest(issued), clientId }))
          ? issued
          : undefined;
      },
      execute,
      status: (paymentId, clientId) => statuses.submit({ paymentId, clientId }),
    },
    close,
  };
}
