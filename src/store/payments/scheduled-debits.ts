// Future-dated payments waiting for their date, as account information shows them: pending lines of
// the debtor account's statement.
import { batchedRead } from '../batched-read.ts';
import type { StoreDb } from '../database.ts';

/** A future-dated payment waiting for its date (ACCP): a pending line of its debtor account's statement. */
export interface ScheduledDebit {
  readonly amountMinor: number;
  readonly currency: string;
  readonly requestedExecutionDate: string;
  readonly createdAt: Date;
  readonly creditorName: string | null;
  readonly remittance: string | null;
}

const scheduledDebits = batchedRead<{ accountId: string; from: string; to: string }, ScheduledDebit>(
  'scheduled_debits',
  `SELECT w.item::int AS item, p.amount_minor::float8 AS "amountMinor", p.currency,
          p.requested_execution_date::text AS "requestedExecutionDate", p.created_at AS "createdAt",
          p.creditor_name AS "creditorName", p.instruction->>'remittance' AS remittance
     FROM unnest($1::text[], $2::date[], $3::date[]) WITH ORDINALITY AS w (account, first_day, last_day, item)
     JOIN payments p ON p.debtor_account_id = w.account AND p.status = 'ACCP'
                    AND p.requested_execution_date BETWEEN w.first_day AND w.last_day
    ORDER BY w.item, p.requested_execution_date DESC, p.created_at DESC`,
  (reads) => [
    reads.map((read) => read.accountId),
    reads.map((read) => read.from),
    reads.map((read) => read.to),
  ],
);

/**
 * An account's payments waiting for a date from `from` to `to` (inclusive), latest first (every
 * transactions read: joined with concurrent reads).
 */
export function listScheduledDebits(
  db: StoreDb,
  accountId: string,
  range: { from: string; to: string },
): Promise<ScheduledDebit[]> {
  return scheduledDebits(db, { accountId, ...range });
}
