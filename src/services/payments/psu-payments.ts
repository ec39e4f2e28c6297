// The PSU's future-dated payments on the permission dashboard (issue 39): executed with a later date
// and waiting for it (ACCP), with the TPP that initiated each; the PSU may cancel one until its date,
// as the TPP may (cancellation.ts): CANC through the state machine's one transition function, and the
// TPP's status read shows it. Only the PSU's own payments are reachable: another's id is unknown here.
import { formatAmount } from '../../domain/money.ts';
import { cancellable, nextStatus } from '../../domain/payment.ts';
import { lockPayment } from '../../store/payments/locks.ts';
import { moveStatus } from '../../store/payments/moves.ts';
import { psuScheduledPayments } from '../../store/psu-dashboard-repository.ts';
import { type ServiceContext, today } from '../shared/context.ts';
import type { PsuActor } from '../shared/psu-actor.ts';

export interface PsuPaymentView {
  readonly paymentId: string;
  readonly tppName: string;
  readonly amount: string;
  readonly currency: string;
  readonly creditorName: string | undefined;
  readonly creditorAccount: string;
  readonly executionDate: string;
}

export async function listPsuScheduledPayments(
  context: ServiceContext,
  psu: PsuActor,
): Promise<PsuPaymentView[]> {
  const rows = await psuScheduledPayments(context.db, psu.psuId, today(context));
  return rows.map((row) => ({
    paymentId: row.paymentId,
    tppName: row.appName,
    amount: formatAmount({ minor: row.amountMinor, currency: row.currency }),
    currency: row.currency,
    creditorName: row.creditorName ?? undefined,
    creditorAccount: row.creditorAccount,
    executionDate: row.executionDate,
  }));
}

/**
 * 'unknown': not the PSU's, or not a future-dated payment waiting for its date (nothing changes);
 * 'too-late': it is being booked or no longer waits; 'cancelled': it is CANC (now or already).
 */
export type PsuCancellation = 'cancelled' | 'unknown' | 'too-late';

/** The PSU cancels a future-dated payment: the one way a PSU cancels from the dashboard. */
export async function cancelPaymentByPsu(
  context: ServiceContext,
  psu: PsuActor,
  paymentId: string,
): Promise<PsuCancellation> {
  const result = await context.db.transaction(async (trx): Promise<PsuCancellation | { product: string }> => {
    const payment = await lockPayment(trx, paymentId);
    // A basket's payment is cancelled only with its basket, which has no cancellation.
    if (payment === undefined || payment.psuId !== psu.psuId || payment.basketId !== null) return 'unknown';
    if (payment.status === 'CANC') return 'cancelled';
    if (payment.status !== 'ACCP' || payment.requestedExecutionDate === null) return 'unknown';
    if (!cancellable(payment, today(context))) return 'too-late';
    const to = nextStatus(payment, { type: 'cancelled' });
    if (!(await moveStatus(trx, payment.id, payment.status, to, context.clock(), { by: 'psu', actor: psu })))
      throw new Error(`payment ${payment.id} changed while locked`);
    return { product: payment.product };
  });
  if (typeof result === 'string') return result;
  // Counted once committed, as the TPP's cancellation is.
  context.metrics.paymentStatus(result.product, 'CANC');
  return 'cancelled';
}
