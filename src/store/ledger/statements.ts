// An account's statement: the entries booked on it with what their bookings say.
import type { StatementLine } from '../../domain/accounts.ts';
import { batchedRead } from '../batched-read.ts';
import type { StoreDb } from '../database.ts';

interface StatementQuery {
  readonly ledgerAccount: string;
  readonly from: string;
  readonly to: string;
  readonly limit: number;
}

// An entry carries its booking's dates, names and remittance (the trigger function of
// store/definitions/ledger_entry_from_booking.sql): the lines are one range of ledger_entries_statement
// per account, ordered by the date and the entry's id, which the answer does not carry.
const statements = batchedRead<StatementQuery, StatementLine>(
  'statements',
  `SELECT w.item::int AS item, l."amountMinor", l.currency, l."bookedOn", l."transactionDate", l."debtorName",
          l."creditorName", l.remittance
     FROM unnest($1::text[], $2::date[], $3::date[], $4::int[]) WITH ORDINALITY
          AS w (ledger_account, first_day, last_day, most, item),
          LATERAL (SELECT e.amount_minor::float8 AS "amountMinor", e.currency, e.booked_on::text AS "bookedOn",
                          e.transaction_date::text AS "transactionDate", e.debtor_name AS "debtorName",
                          e.creditor_name AS "creditorName", e.remittance, e.booked_on, e.entry_id
                     FROM ledger_entries e
                    WHERE e.ledger_account = w.ledger_account
                      AND e.booked_on BETWEEN w.first_day AND w.last_day
                    ORDER BY e.booked_on DESC, e.entry_id DESC
                    LIMIT w.most) AS l
    ORDER BY w.item, l.booked_on DESC, l.entry_id DESC`,
  (queries) => [
    queries.map((query) => query.ledgerAccount),
    queries.map((query) => query.from),
    queries.map((query) => query.to),
    queries.map((query) => query.limit),
  ],
);

/**
 * An account's entries booked from `from` to `to` (ISO dates, inclusive), newest first, at most
 * `limit` (every transactions read: joined with concurrent reads).
 */
export function statementOf(
  db: StoreDb,
  ledgerAccount: string,
  range: { from: string; to: string; limit: number },
): Promise<StatementLine[]> {
  return statements(db, { ledgerAccount, ...range });
}
