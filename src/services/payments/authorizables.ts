// Payments and signing baskets as what a PSU authorizes (scope PIS:<id>): the debtor accounts' holder
// approves, on a page that shows each payment, or in the e-ID app with the amount and the payee.
import type { Basket } from '../../domain/baskets.ts';
import { formatAmount } from '../../domain/money.ts';
import type { Payment } from '../../domain/payment.ts';
import { findBasket, listBasketPayments } from '../../store/baskets-repository.ts';
import { findPayment } from '../../store/payments/reads.ts';
import type { Authorizable, AuthorizableKind, PaymentSummary } from '../shared/authorizables.ts';
import type { ServiceContext } from '../shared/context.ts';

export function paymentAuthorizables(context: ServiceContext): AuthorizableKind[] {
  return [
    {
      service: 'PIS',
      async find(id) {
        const payment = await findPayment(context.db, id);
        return payment === undefined ? undefined : paymentResource(context, payment);
      },
    },
    {
      service: 'PIS',
      async find(id) {
        const basket = await findBasket(context.db, id);
        return basket === undefined
          ? undefined
          : basketResource(context, basket, await listBasketPayments(context.db, id));
      },
    },
  ];
}

function paymentResource(context: ServiceContext, payment: Payment): Authorizable {
  const payee =
    payment.creditorName === null
      ? payment.creditorAccount
      : `${payment.creditorName} (${payment.creditorAccount})`;
  return heldBy(context, payment.psuId, [payment], {
    id: payment.id,
    clientId: payment.clientId,
    country: payment.country,
    refusal:
      payment.basketId !== null
        ? `the payment is part of signing basket ${payment.basketId}: authorize the basket`
        : payment.status !== 'ACTC'
          ? 'the payment is not awaiting authorization'
          : undefined,
    visibleText: `Pay ${formatAmount(payment.amount)} ${payment.amount.currency} to ${payee}`,
  });
}

function basketResource(context: ServiceContext, basket: Basket, payments: readonly Payment[]): Authorizable {
  const currencies = [...new Set(payments.map((payment) => payment.amount.currency))];
  const totals = currencies.map((currency) => {
    const minor = payments
      .filter((payment) => payment.amount.currency === currency)
      .reduce((sum, payment) => sum + payment.amount.minor, 0);
    return `${formatAmount({ currency, minor })} ${currency}`;
  });
  return heldBy(context, basket.psuId, payments, {
    id: basket.basketId,
    clientId: basket.clientId,
    country: 'SE',
    refusal: payments.some((payment) => payment.status !== 'ACTC')
      ? 'the basket is not awaiting authorization'
      : undefined,
    visibleText: `Sign ${payments.length} payments, in all ${totals.join(' and ')}`,
  });
}

/** What a payment or a basket says of itself. */
type OwnMembers = Pick<Authorizable, 'id' | 'clientId' | 'country' | 'refusal' | 'visibleText'>;

/**
 * A payment or basket as an authorizable: what they share (the debtor accounts' holder authorizes, and
 * the approval does no more) and its own members, in one literal (a spread followed by members costs
 * microseconds on Node 20: docs/decisions.md, "Spreads followed by members").
 */
function heldBy(
  context: ServiceContext,
  psuId: string,
  payments: readonly Payment[],
  own: OwnMembers,
): Authorizable {
  return {
    service: 'PIS',
    id: own.id,
    clientId: own.clientId,
    country: own.country,
    refusal: own.refusal,
    visibleText: own.visibleText,
    psuId,
    sandboxPsu: null,
    psuRefusal: async (candidate: string) =>
      candidate === psuId ? undefined : 'the PSU does not hold the debtor account',
    describe: async () => ({
      payments: await Promise.all(payments.map((payment) => summarize(context, payment))),
    }),
    approve: async () => {},
    stillGrants: () => true,
  };
}

async function summarize(context: ServiceContext, payment: Payment): Promise<PaymentSummary> {
  const debtor = await context.coreBanking.findAccount({ kind: 'id', accountId: payment.debtorAccountId });
  return {
    amount: formatAmount(payment.amount),
    currency: payment.amount.currency,
    creditorName: payment.creditorName,
    creditorAccount: payment.creditorAccount,
    debtorAccount: debtor?.iban ?? debtor?.bban ?? payment.debtorAccountId,
    executionDate: payment.requestedExecutionDate,
  };
}
