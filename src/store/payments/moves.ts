// A payment's status moved along the state machine: in a transaction, or with the answer to the
// request that executed it in one statement. Each move names who made it in the row it updates
// (audit_actor, migration 0035), for the audit record its trigger writes (transition-rule.ts).
import { and, eq } from 'drizzle-orm';
import type { PaymentMover } from '../../domain/audit.ts';
import { canMove, type TransactionStatus, TransitionRefused } from '../../domain/payment.ts';
import { joinedStatement } from '../coalescer.ts';
import { type Db, runStatement, type StoreDb } from '../database.ts';
import { answerColumns, type RecordedAnswer, recordAnswersSql } from '../idempotency-repository.ts';
import { payments } from '../schema.ts';

/**
 * The mover as the row's audit_actor carries it to the trigger: `by`, and of the request the TPP, the
 * certificate, the address and the correlation id it has (the trigger takes the app and the PSU from
 * the payment; the PSU acting on the dashboard has no TPP or certificate).
 */
export function moverColumn(mover: PaymentMover): Record<string, string> {
  const column: Record<string, string> = { by: mover.by };
  if (mover.by === 'system') return column;
  const { actor } = mover;
  const fields = {
    tppId: mover.by === 'tpp' ? actor.tppId : null,
    certificate: mover.by === 'tpp' ? actor.certificate : null,
    address: actor.address,
    correlationId: actor.correlationId,
  };
  for (const [name, value] of Object.entries(fields)) if (typeof value === 'string') column[name] = value;
  return column;
}

/**
 * Moves a locked payment along the state machine (domain/payment.ts TRANSITIONS): RJCT with its
 * reason; any move ends a booking under way. Throws on a move the table does not have; answers false
 * when the payment was no longer in `from`.
 */
export async function moveStatus(
  trx: Db,
  paymentId: string,
  from: TransactionStatus,
  to: TransactionStatus,
  at: Date,
  mover: PaymentMover,
  rejection?: { readonly reasonCode: string; readonly reason: string },
): Promise<boolean> {
  if (!canMove(from, to)) throw new TransitionRefused(paymentId, from, to);
  if ((to === 'RJCT') !== (rejection !== undefined))
    throw new Error('a rejection, and only it, has a reason');
  const rows = await trx
    .update(payments)
    .set({
      status: to,
      executedAt: at,
      reasonCode: rejection?.reasonCode ?? null,
      reason: rejection?.reason ?? null,
      bookingKey: null,
      bookingStartedAt: null,
      auditActor: moverColumn(mover),
    })
    .where(and(eq(payments.paymentId, paymentId), eq(payments.status, from)))
    .returning({ paymentId: payments.paymentId });
  return rows.length === 1;
}

/** A move of a payment whose booking `bookingKey` was answered. */
export interface BookedMove {
  readonly paymentId: string;
  readonly bookingKey: string;
  readonly from: TransactionStatus;
  readonly to: TransactionStatus;
  readonly at: Date;
  readonly rejection?: { readonly reasonCode: string; readonly reason: string } | undefined;
  readonly mover: PaymentMover;
}

interface BookedAnswer {
  readonly move: BookedMove;
  readonly answer: RecordedAnswer | undefined;
}

/**
 * Concurrent executions' finishes in one statement and one commit: a payment never twice in one (a
 * concurrent finish of the same payment waits for the next statement, and finds it moved).
 */
const bookedMoves = joinedStatement('move_booked_answering', moveBookedAnsweringAll, {
  key: ({ move }) => move.paymentId,
});

/**
 * Moves a payment still waiting for the answer to its booking along the state machine (as moveStatus)
 * and records the answer to the request that executed it, in one statement (atomic without a
 * transaction) joined with concurrent executions' (see coalescer.ts): the answer only when the payment
 * moved, and only under its Idempotency-Key's claim (no key: nothing to record). Answers whether it
 * moved, and whether the answer was recorded (false: the claim was lost meanwhile; the move stands, as
 * the bank's outcome must be recorded whatever the answer).
 */
export function moveBookedAnswering(
  db: StoreDb,
  move: BookedMove,
  answer: RecordedAnswer | undefined,
): Promise<{ moved: boolean; answered: boolean }> {
  if (!canMove(move.from, move.to)) throw new TransitionRefused(move.paymentId, move.from, move.to);
  if ((move.to === 'RJCT') !== (move.rejection !== undefined))
    throw new Error('a rejection, and only it, has a reason');
  return bookedMoves(db, { move, answer });
}

/** The moves and their answers; a claim is one request's, so no two items record under one key. */
async function moveBookedAnsweringAll(
  db: StoreDb,
  items: readonly BookedAnswer[],
): Promise<{ moved: boolean; answered: boolean }[]> {
  const rows = await runStatement<{ paymentId: string; moved: boolean; answered: boolean }>(
    db,
    'move_booked_answering',
    `WITH input AS (
       SELECT * FROM jsonb_to_recordset($1::jsonb)
         AS t("paymentId" text, "bookingKey" text, "from" text, "to" text, at timestamptz,
              "reasonCode" text, reason text, "claimClient" text, operation text, key text, claim text,
              "statusCode" integer, body jsonb, mover jsonb)
     ),
     moved AS (
       UPDATE payments p
          SET status = i."to", executed_at = i.at, reason_code = i."reasonCode", reason = i.reason,
              booking_key = NULL, booking_started_at = NULL, audit_actor = i.mover
         FROM input i
        -- The ids as an array too: the planner takes the input for 100 rows (jsonb_to_recordset's
        -- estimate) and would join it with a scan of every payment; by the array, it reads the key.
        WHERE p.payment_id = ANY (ARRAY(SELECT "paymentId" FROM input))
          AND p.payment_id = i."paymentId" AND p.booking_key = i."bookingKey" AND p.status = i."from"
        RETURNING p.payment_id
     ),
     answering AS (SELECT i.* FROM input i JOIN moved m ON m.payment_id = i."paymentId"),
     recorded AS (${recordAnswersSql('answering')})
     SELECT i."paymentId",
            EXISTS (SELECT 1 FROM moved m WHERE m.payment_id = i."paymentId") AS moved,
            EXISTS (SELECT 1 FROM moved m WHERE m.payment_id = i."paymentId")
              AND (i.claim IS NULL OR i.claim IN (SELECT claim FROM recorded)) AS answered
       FROM input i`,
    [
      JSON.stringify(
        items.map(({ move, answer }) =>
          Object.assign(
            {
              paymentId: move.paymentId,
              bookingKey: move.bookingKey,
              from: move.from,
              to: move.to,
              at: move.at.toISOString(),
              reasonCode: move.rejection?.reasonCode ?? null,
              reason: move.rejection?.reason ?? null,
              mover: moverColumn(move.mover),
            },
            answerColumns(answer),
          ),
        ),
      ),
    ],
  );
  const outcomes = new Map(rows.map((row) => [row.paymentId, row]));
  return items.map(({ move }) => {
    const row = outcomes.get(move.paymentId)!;
    return { moved: row.moved, answered: row.answered };
  });
}
