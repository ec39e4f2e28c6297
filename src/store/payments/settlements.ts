// A payment accepted at execution and settled later (the sandbox's settlement scenarios): moved from
// ACTC to ACCP with the bank day it settles on, by the same kind of row update as every move, so that
// the transition trigger checks, audits and notifies it (store/transition-rule.ts).
import { and, eq, isNull } from 'drizzle-orm';
import type { PaymentMover } from '../../domain/audit.ts';
import { canMove, TransitionRefused } from '../../domain/payment.ts';
import type { Db } from '../database.ts';
import { payments } from '../schema.ts';
import { moverColumn } from './moves.ts';

/**
 * Moves a locked payment waiting for execution (ACTC, no booking under way) to ACCP, to settle on
 * `settlesOn`; answers false when it was no longer waiting.
 */
export async function acceptForSettlement(
  trx: Db,
  paymentId: string,
  at: Date,
  settlesOn: string,
  mover: PaymentMover,
): Promise<boolean> {
  if (!canMove('ACTC', 'ACCP')) throw new TransitionRefused(paymentId, 'ACTC', 'ACCP');
  const rows = await trx
    .update(payments)
    .set({ status: 'ACCP', executedAt: at, settlesOn, auditActor: moverColumn(mover) })
    .where(and(eq(payments.paymentId, paymentId), eq(payments.status, 'ACTC'), isNull(payments.bookingKey)))
    .returning({ paymentId: payments.paymentId });
  return rows.length === 1;
}
