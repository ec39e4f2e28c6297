// Swedish signing baskets: several payments one PSU authorizes and the TPP executes together.
import type { TransactionStatus } from './payment.ts';

export interface Basket {
  readonly basketId: string;
  readonly clientId: string;
  readonly psuId: string;
}

/**
 * The status a basket answers after execution: the least advanced of its payments' statuses, so a
 * TPP never reads a basket as settled while one of its payments waits for its date.
 */
export function basketStatus(statuses: readonly TransactionStatus[]): TransactionStatus {
  const order: readonly TransactionStatus[] = ['RJCT', 'CANC', 'ACTC', 'ACCP', 'ACSC', 'ACCC'];
  return order.find((status) => statuses.includes(status)) ?? 'ACTC';
}
