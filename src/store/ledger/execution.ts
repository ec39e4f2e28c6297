// An execution booked, moved and answered in one call (store/definitions/ledger_execute_all.sql), joined
// with concurrent executions.
import type { PaymentMover } from '../../domain/audit.ts';
import type { TransactionStatus } from '../../domain/payment.ts';
import { joinedStatement } from '../coalescer.ts';
import { runStatement, type StoreDb } from '../database.ts';
import { answerColumns, type RecordedAnswer } from '../idempotency-repository.ts';
import { moverColumn } from '../payments/moves.ts';
import {
  type AccountCurrencies,
  type LedgerOrder,
  type LedgerRules,
  type OrderOutcome,
  rulesJson,
} from './booking.ts';

/**
 * The gateway's record of one payment's execution, kept with the booking when the ledger books it in
 * the gateway's own database (ledger_execute; services/shared/recorded-bookings.ts): the status the
 * payment waits in (not marked for a booking asked before), its status once booked, and the answer to
 * the request that executed it, kept under its Idempotency-Key's claim once booked (none without a
 * key), and who moved it, for its audit record. The bank's port never sees it: it is the gateway's
 * idempotency record, not a word of the bank's.
 */
export interface ExecutionRecord {
  readonly paymentId: string;
  readonly from: TransactionStatus;
  readonly to: TransactionStatus;
  readonly answer: RecordedAnswer | undefined;
  readonly mover: PaymentMover;
}

/** ledger_execute's answer when it converted nothing: nothing done (not waiting unmarked), or the outcome. */
export type LedgerExecution =
  | { readonly moved: false }
  | (OrderOutcome & { readonly moved: true; readonly answered: boolean });

interface Execution {
  readonly order: LedgerOrder;
  readonly rules: LedgerRules;
  readonly at: Date;
  readonly record: ExecutionRecord;
}

// Executions that arrive together share a statement and a commit (store/definitions/ledger_execute_all.sql);
// two executions of one payment never share one (the later finds the payment moved, as it would alone).
// A statement that fails is retried item by item, so an item that raises fails only its own request.
const executions = joinedStatement('ledger_execute_all', executeAll, {
  key: (item) => item.record.paymentId,
});

async function executeAll(
  db: StoreDb,
  items: readonly Execution[],
): Promise<readonly (LedgerExecution | AccountCurrencies)[]> {
  const { rules } = items[0]!;
  // One rules parameter for the statement: items of other rules are refused here, and run alone.
  if (items.some((item) => item.rules !== rules))
    throw new Error('executions of one statement share their rules');
  const rows = await runStatement<{ answers: (LedgerExecution | AccountCurrencies)[] }>(
    db,
    'ledger_execute_all',
    'SELECT ledger_execute_all($1::jsonb, $2::jsonb) AS answers',
    [
      JSON.stringify(
        items.map(({ order, at, record }) => ({
          key: order.key,
          bookingDate: order.bookingDate,
          lines: order.lines,
          at: at.toISOString(),
          payment: {
            paymentId: record.paymentId,
            from: record.from,
            to: record.to,
            mover: moverColumn(record.mover),
            ...(record.answer === undefined ? {} : { answer: answerColumns(record.answer) }),
          },
        })),
      ),
      rulesJson(rules),
    ],
  );
  return rows[0]!.answers;
}

/**
 * Books an order of one payment and records its execution in one transaction (ledger_execute, migration
 * 0022, for each item of ledger_execute_all, 0024): the payment locked, the order booked as
 * bookLedgerOrder does, the payment moved (to `record.to`, or RJCT with the reason) and, when booked, the
 * answer recorded under the claim of its Idempotency-Key, if any, unless lost. Nothing is done when the
 * payment is not waiting unmarked in `record.from`, or a debit must be converted first. Concurrent
 * executions share the statement and its commit.
 */
export function executeLedgerOrder(
  db: StoreDb,
  order: LedgerOrder,
  rules: LedgerRules,
  at: Date,
  record: ExecutionRecord,
): Promise<LedgerExecution | AccountCurrencies> {
  return executions(db, { order, rules, at, record });
}
