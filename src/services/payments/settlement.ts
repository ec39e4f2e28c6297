// Payments that settle later, as live payments to other banks do (Bankgiro, clearing): a sandbox
// scenario by creditor account (src/sandbox/scenarios.ts, policy.settlementOf). Executed for today, such
// a payment is accepted (ACCP) to settle on the next bank day, pending in its account's transactions;
// on that day the scheduler (or an advance of the app's clock) books it to ACSC, or rejects it with the
// scenario's reason. Each move is a row update, checked, audited and notified by the transition trigger.
import { nextBankDay } from '../../domain/dates.ts';
import { nextStatus, type Payment, statusAfterExecution } from '../../domain/payment.ts';
import { findProduct } from '../../domain/products.ts';
import { lockPayment } from '../../store/payments/locks.ts';
import { acceptForSettlement } from '../../store/payments/settlements.ts';
import { type ServiceContext, today } from '../shared/context.ts';
import { type Answer, recordOnce } from '../shared/idempotency.ts';
import { countMoves, type OneExecution } from './booking.ts';

/** Whether the payment, executed today, is one of a settlement scenario. */
function settlesLater(context: ServiceContext, payment: Payment, day: string): boolean {
  if (context.policy.settlementOf(payment.creditorAccount) === undefined) return false;
  if (payment.booking !== null || findProduct(payment.product)?.settlement !== 'ACSC') return false;
  return statusAfterExecution(payment, 'ACSC', day) !== 'ACCP';
}

/**
 * Executes a payment of a settlement scenario: accepted (ACCP) to settle on the next bank day, with the
 * answer recorded under the request's key in the same transaction. Undefined when the payment is none
 * of a scenario (the caller books it as any other).
 */
export async function acceptToSettleLater<T>(
  context: ServiceContext,
  { payment, claim, answer, mover }: OneExecution<T>,
): Promise<Answer<T> | undefined> {
  const day = today(context);
  if (!settlesLater(context, payment, day)) return undefined;
  const to = nextStatus(payment, { type: 'accepted' });
  const at = context.clock();
  let moved = false;
  return recordOnce(
    context.db,
    claim,
    async (trx) => {
      moved = await acceptForSettlement(trx, payment.id, at, nextBankDay(day), mover);
      const now = await lockPayment(trx, payment.id);
      return answer(now!);
    },
    () => {
      if (moved) countMoves(context, [{ product: payment.product, to }]);
    },
  );
}

/**
 * The rejection a due payment meets at its settlement (a scenario's), or undefined: it is booked as
 * any other. Only payments accepted to settle later (ACCP without a date of their own) have one.
 */
export function settlementRejection(
  context: ServiceContext,
  payment: Payment,
): { reasonCode: string; reason: string } | undefined {
  if (payment.status !== 'ACCP' || payment.requestedExecutionDate !== null) return undefined;
  const scenario = context.policy.settlementOf(payment.creditorAccount);
  if (scenario?.outcome !== 'rejected') return undefined;
  return { reasonCode: scenario.reasonCode ?? 'NARR', reason: scenario.reason ?? 'rejected at settlement' };
}
