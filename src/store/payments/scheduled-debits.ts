// Future-dated payments waiting for their date, and accepted ones waiting for their settlement, as
// account information shows them: pending lines of the debtor account's statement.
import { batchedRead } from '../batched-read.ts';
import type { StoreDb } from '../database.ts';

/**
 * A payment waiting for its date, or for its settlement (ACCP): a pending line of its debtor account's
 * statement, dated with the day it is booked on.
 */
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
          COALESCE(p.settles_on, p.requested_execution_date)::text AS "requestedExecutionDate",
          p.created_at AS "createdAt",
          p.creditor_name AS "creditorName", p.instruction->>'remittance' AS remittance
     FROM unnest($1::text[], $2::date[], $3::date[]) WITH ORDINALITY AS w (account, first_day, last_day, item)
     JOIN payments p ON p.debtor_account_id = w.account AND p.status = 'ACCP'
                    AND CASE WHEN p.requested_execution_date IS NULL THEN p.settles_on >= w.first_day
                             ELSE p.requested_execution_date BETWEEN w.first_day AND w.last_day END
    ORDER BY w.item, COALESCE(p.settles_on, p.requested_execution_date) DESC, p.created_at DESC`,
  (reads) => [
    reads.map((read) => read.accountId),
    reads.map((read) => read.from),
    reads.map((read) => read.to),
  ],
);

/**
 * An account's payments waiting for a date from `from` to `to` (inclusive), and those waiting for a
 * settlement on `from` or later (they are current, whatever the period's end), latest first (every
 * transactions read: joined with concurrent reads).
 */
export function listScheduledDebits(
  db: StoreDb,
  accountId: string,
  range: { from: string; to: string },
): Promise<ScheduledDebit[]> {
  return scheduledDebits(db, { accountId, ...range });
}
