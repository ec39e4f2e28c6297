// What a PIS scope names: one payment, or a signing basket whose id replaces the payment id in
// scopes, in the execute path and in the decoupled request (spec "Additional rules" 2).
import { formatAmount } from '../domain/money.ts';
import type { Payment } from '../domain/payment.ts';
import { findBasket, listBasketPayments } from '../store/baskets-repository.ts';
import type { Db } from '../store/database.ts';
import { findPayment } from '../store/payments-repository.ts';

export interface PisResource {
  readonly kind: 'payment' | 'basket';
  readonly id: string;
  readonly clientId: string;
  /** The PSU who holds the debtor account(s) and authorizes. */
  readonly psuId: string;
  readonly country: string;
  readonly payments: readonly Payment[];
}

export async function findPisResource(db: Db, id: string): Promise<PisResource | undefined> {
  const payment = await findPayment(db, id);
  if (payment !== undefined) {
    return {
      kind: 'payment',
      id,
      clientId: payment.clientId,
      psuId: payment.psuId,
      country: payment.country,
      payments: [payment],
    };
  }
  const basket = await findBasket(db, id);
  if (basket === undefined) return undefined;
  return {
    kind: 'basket',
    id,
    clientId: basket.clientId,
    psuId: basket.psuId,
    country: 'SE',
    payments: await listBasketPayments(db, id),
  };
}

/** Why a resource cannot be authorized now, or undefined when it can. */
export function notAuthorizable(resource: PisResource): string | undefined {
  const [first] = resource.payments;
  if (resource.kind === 'payment' && first?.basketId !== null && first?.basketId !== undefined) {
    return `the payment is part of signing basket ${first.basketId}: authorize the basket`;
  }
  if (resource.payments.some((payment) => payment.status !== 'ACTC')) {
    return resource.kind === 'basket'
      ? 'the basket is not awaiting authorization'
      : 'the payment is not awaiting authorization';
  }
  return undefined;
}

/** What the e-ID app shows the PSU: the amount and the payee, or for a basket its size and total. */
export function visibleText(resource: PisResource): string {
  const [first] = resource.payments;
  if (resource.kind === 'payment' && first !== undefined) {
    const payee =
      first.creditorName === null
        ? first.creditorAccount
        : `${first.creditorName} (${first.creditorAccount})`;
    return `Pay ${formatAmount(first.amount)} ${first.amount.currency} to ${payee}`;
  }
  const currencies = [...new Set(resource.payments.map((payment) => payment.amount.currency))];
  const totals = currencies.map((currency) => {
    const minor = resource.payments
      .filter((p) => p.amount.currency === currency)
      .reduce((sum, p) => sum + p.amount.minor, 0);
    return `${formatAmount({ currency, minor })} ${currency}`;
  });
  return `Sign ${resource.payments.length} payments, in all ${totals.join(' and ')}`;
}
