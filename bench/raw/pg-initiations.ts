// raw(work) storing its initiations: each payment with its answer under the app's request id on a table
// of its own before it answers, concurrent requests in one multi-row INSERT and one commit.
import { BATCH_LIMITS, Coalescer } from '../../src/store/coalescer.ts';
import { rawSchema } from './pg-schema.ts';
import type { RawInitiation } from './work-data.ts';

/**
 * Where raw(work) keeps its initiations on PostgreSQL: a table of its own (a schema of its own), the
 * request id unique per app as the gateway's. Concurrent requests share one prepared multi-row INSERT
 * and one commit, two statements in flight (the gateway's own limits, src/store/coalescer.ts): what a
 * plain `pg` server built for throughput does. One INSERT per request, as a first version of this
 * baseline did, reached about half the rate on 2 cores (docs/decisions.md).
 */
export async function rawPgInitiations(
  databaseUrl: string,
): Promise<{ keep: (initiation: RawInitiation) => Promise<void>; close: () => Promise<void> }> {
  const { pool, close } = await rawSchema(
    databaseUrl,
    `CREATE TABLE payments (payment_id text PRIMARY KEY, client_id text NOT NULL, request_id text NOT NULL,
                            instruction jsonb NOT NULL, answer jsonb NOT NULL,
                            created_at timestamptz NOT NULL DEFAULT now(), UNIQUE (client_id, request_id));`,
  );
  const inserts = new Coalescer<RawInitiation, undefined>(
    async (items) => {
      await pool.query({
        name: 'raw_initiations',
        text: `INSERT INTO payments (payment_id, client_id, request_id, instruction, answer)
               SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::jsonb[], $5::jsonb[])`,
        values: [
          items.map((item) => item.paymentId),
          items.map((item) => item.clientId),
          items.map((item) => item.requestId),
          items.map((item) => JSON.stringify(item.body)),
          items.map((item) => JSON.stringify(item.answer)),
        ],
      });
      return items.map(() => undefined);
    },
    { ...BATCH_LIMITS, key: (item) => `${item.clientId}\n${item.requestId}` },
  );
  return {
    keep: (initiation) => inserts.submit(initiation),
    close,
  };
}
