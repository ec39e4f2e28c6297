// Records what the bank's core banking answered for an execution: the new status, or RJCT with its reason.
import type { Payment, TransactionStatus } from '../../domain/payment.ts';
import type { ExecutionResult } from '../../ports/core-banking.ts';
import type { Db } from '../../store/database.ts';
import { moveStatus, rejectPayment } from '../../store/payments-repository.ts';

/** Answers the payment as it now is; throws when it had left `from` (the caller holds its lock). */
export async function recordResult(
  trx: Db,
  payment: Payment,
  from: TransactionStatus,
  result: ExecutionResult,
  at: Date,
): Promise<Payment> {
  const moved =
    result.status === 'RJCT'
      ? await rejectPayment(trx, payment.id, from, result, at)
      : await moveStatus(trx, payment.id, from, result.status, at);
  if (!moved) throw new Error(`payment ${payment.id} left ${from} while locked`);
  return {
    ...payment,
    status: result.status,
    executedAt: at,
    reasonCode: result.status === 'RJCT' ? result.reasonCode : null,
    reason: result.status === 'RJCT' ? result.reason : null,
  };
}
