// What a PIS scope names: one payment, or a signing basket whose id replaces the payment id in
// scopes, in the execute path and in the decoupled request (spec "Additional rules" 2).
import { formatAmount } from '../../domain/money.ts';
import type { Payment } from '../../domain/payment.ts';
import type { ResourceScope } from '../../domain/scope.ts';
import { findBasket, listBasketPayments } from '../../store/baskets-repository.ts';
import { type ConsentRow, findConsent } from '../../store/consents-repository.ts';
import type { Db } from '../../store/database.ts';
import { findPayment } from '../../store/payments-repository.ts';
import {
  approveConsent,
  SANDBOX_CONSENT_PSU,
  SANDBOX_GB_CONSENT_PSU,
  SHORT_TERM_READS,
  SHORT_TERM_VALIDITY_MS,
} from '../account-information/short-term-consent.ts';
import type { ServiceContext } from './context.ts';

export interface PisResource {
  readonly kind: 'payment' | 'basket' | 'consent';
  readonly id: string;
  readonly clientId: string;
  /** The PSU who holds the debtor account(s) and authorizes; for a consent, whoever approves it. */
  readonly psuId: string | null;
  readonly country: string;
  readonly payments: readonly Payment[];
  /** A consent (a short-term consent is authorized with a PIS scope, an account consent with AIS). */
  readonly consent?: ConsentRow;
}

/** What an authorization scope names: PIS a payment, basket or short-term consent; AIS an account consent. */
export async function findScopeResource(db: Db, scope: ResourceScope): Promise<PisResource | undefined> {
  if (scope.service === 'AIS') {
    const consent = await findConsent(db, scope.resourceId);
    return consent === undefined || consent.kind === 'short-term' ? undefined : consentResource(consent);
  }
  const resource = await findPisResource(db, scope.resourceId);
  return resource?.consent !== undefined && resource.consent.kind !== 'short-term' ? undefined : resource;
}

function consentResource(consent: ConsentRow): PisResource {
  return {
    kind: 'consent',
    id: consent.consentId,
    clientId: consent.clientId,
    psuId: consent.psuId,
    country: consent.kind === 'accounts-gb' ? 'GB' : 'SE',
    payments: [],
    consent,
  };
}

async function findPisResource(db: Db, id: string): Promise<PisResource | undefined> {
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
    return consent === undefined ? undefined : consentResource(consent);
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
  if (resource.consent !== undefined) {
    return resource.consent.status === 'received' ? undefined : 'the consent is not awaiting authorization';
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
  if (resource.consent?.kind === 'short-term') {
    return `Share your accounts, balances and cards: up to ${SHORT_TERM_READS} reads within ${SHORT_TERM_VALIDITY_MS / 60_000} minutes`;
  }
  if (resource.consent !== undefined) {
    const until = resource.consent.validUntil?.toISOString().slice(0, 10);
    return `Share your accounts, balances, card accounts and transactions until ${until}`;
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

/**
 * Who authorizes: the debtor accounts' holder; for a consent the PSU the TPP named (PSU-ID), else in
 * the sandbox, where nobody logs in, a test PSU (the first private one; for GB the British one).
 */
export function authorizingPsu(context: ServiceContext, resource: PisResource): string | null {
  if (resource.psuId !== null) return resource.psuId;
  if (resource.consent?.requestedPsuId != null) return resource.consent.requestedPsuId;
  if (context.config.mode !== 'sandbox') return null;
  return resource.consent?.kind === 'accounts-gb' ? SANDBOX_GB_CONSENT_PSU : SANDBOX_CONSENT_PSU;
}

/** What the PSU's approval does beyond the code or token: a consent becomes valid for that PSU. */
export async function recordApproval(
  db: Db,
  context: ServiceContext,
  resourceId: string,
  psuId: string,
): Promise<void> {
  const consent = await findConsent(db, resourceId);
  if (consent !== undefined) await approveConsent(db, context, consent, psuId);
}
