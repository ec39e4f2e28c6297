// What a PIS scope names: one payment, or a signing basket whose id replaces the payment id in
// scopes, in the execute path and in the decoupled request (spec "Additional rules" 2).
import { formatAmount } from '../domain/money.ts';
import type { Payment } from '../domain/payment.ts';
import { findBasket, listBasketPayments } from '../store/baskets-repository.ts';
import { findConsent } from '../store/consents-repository.ts';
import type { Db } from '../store/database.ts';
import { findPayment } from '../store/payments-repository.ts';
import type { ServiceContext } from './context.ts';
import {
  approveConsent,
  SANDBOX_CONSENT_PSU,
  SHORT_TERM_READS,
  SHORT_TERM_VALIDITY_MS,
} from './short-term-consent.ts';

export interface PisResource {
  readonly kind: 'payment' | 'basket' | 'consent';
  readonly id: string;
  readonly clientId: string;
  /** The PSU who holds the debtor account(s) and authorizes; for a consent, whoever approves it. */
  readonly psuId: string | null;
  readonly country: string;
  readonly payments: readonly Payment[];
  /** A consent's status (a short-term consent is authorized with a PIS scope too). */
  readonly consentStatus?: string;
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
  if (basket === undefined) {
    const consent = await findConsent(db, id);
    if (consent === undefined) return undefined;
    return {
      kind: 'consent',
      id,
      clientId: consent.clientId,
      psuId: consent.psuId,
      country: 'SE',
      payments: [],
      consentStatus: consent.status,
    };
  }
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
  if (resource.kind === 'consent') {
    return resource.consentStatus === 'received' ? undefined : 'the consent is not awaiting authorization';
  }
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
  if (resource.kind === 'consent') {
    return `Share your accounts, balances and cards: up to ${SHORT_TERM_READS} reads within ${SHORT_TERM_VALIDITY_MS / 60_000} minutes`;
  }
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

/** Who authorizes: the debtor accounts' holder; a consent in the sandbox, where nobody logs in: the sandbox PSU. */
export function authorizingPsu(context: ServiceContext, resource: PisResource): string | null {
  if (resource.psuId !== null) return resource.psuId;
  return context.config.mode === 'sandbox' ? SANDBOX_CONSENT_PSU : null;
}

/** What the PSU's approval does beyond the code or token: a consent becomes valid for that PSU. */
export async function recordApproval(
  db: Db,
  context: ServiceContext,
  resourceId: string,
  psuId: string,
): Promise<void> {
  if ((await findConsent(db, resourceId)) !== undefined) await approveConsent(db, context, resourceId, psuId);
}
