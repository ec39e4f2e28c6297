// Consents as what a PSU authorizes: a short-term consent with scope PIS:<consentId> (individual
// customers only), an account consent with AIS:<consentId> (only by the PSU the TPP named, if it named
// one). Approval makes the consent valid for that PSU.
import type { Consent, ConsentKind } from '../../domain/consents.ts';
import { dayBefore } from '../../domain/dates.ts';
import { findConsent, revokeConsentByPsu, validateConsent } from '../../store/consents-repository.ts';
import type { Db } from '../../store/database.ts';
import { timeOfApp } from '../shared/app-clock.ts';
import type { Authorizable, AuthorizableKind } from '../shared/authorizables.ts';
import type { ServiceContext } from '../shared/context.ts';
import { consentRefusal } from './consents.ts';
import { SHORT_TERM_READS, SHORT_TERM_VALIDITY_MS } from './short-term-consent.ts';

/**
 * Who approves a consent in the sandbox, where no PSU logs in, when the TPP named none: the first
 * private test PSU; for GB and Luxembourg consents the test PSU of that country.
 */
const SANDBOX_CONSENT_PSU: Readonly<Record<ConsentKind, string>> = {
  'short-term': '191212121212',
  accounts: '191212121212',
  'accounts-gb': 'gb-3001',
  'accounts-lu': 'lu-2001',
};
const COUNTRY: Readonly<Record<ConsentKind, string>> = {
  'short-term': 'SE',
  accounts: 'SE',
  'accounts-gb': 'GB',
  'accounts-lu': 'LU',
};

export function consentAuthorizables(context: ServiceContext): AuthorizableKind[] {
  const kind = (service: 'PIS' | 'AIS', shortTerm: boolean): AuthorizableKind => ({
    service,
    async find(id) {
      const consent = await findConsent(context.db, id);
      return consent === undefined || (consent.kind === 'short-term') !== shortTerm
        ? undefined
        : consentResource(context, consent);
    },
  });
  return [kind('PIS', true), kind('AIS', false)];
}

function consentResource(context: ServiceContext, consent: Consent): Authorizable {
  const shortTerm = consent.kind === 'short-term';
  const until =
    consent.validUntil === null ? undefined : dayBefore(consent.validUntil, context.config.timeZone);
  const visibleText = shortTerm
    ? `Share your accounts, balances and cards: up to ${SHORT_TERM_READS} reads within ${SHORT_TERM_VALIDITY_MS / 60_000} minutes`
    : `Share your accounts, balances, card accounts and transactions until ${until}`;
  return {
    service: shortTerm ? 'PIS' : 'AIS',
    id: consent.consentId,
    clientId: consent.clientId,
    country: COUNTRY[consent.kind],
    psuId: consent.psuId ?? consent.requestedPsuId,
    sandboxPsu: SANDBOX_CONSENT_PSU[consent.kind],
    refusal: consent.status === 'received' ? undefined : 'the consent is not awaiting authorization',
    visibleText,
    async psuRefusal(psuId) {
      const named = consent.requestedPsuId;
      if (named !== null && named !== psuId) return 'the consent was asked for another PSU';
      if (!shortTerm) return undefined;
      const psu = await context.psuDirectory.findPsu(psuId);
      return psu?.customerType === 'private'
        ? undefined
        : 'short-term consents are for individual customers only';
    },
    describe: async () => ({ payments: [], access: visibleText }),
    approve: (trx, psuId) => approveConsent(trx, context, consent, psuId),
    // Tokens of an account consent read nothing more once it ends; a short-term consent counts its reads.
    stillGrants: (now) => shortTerm || consentRefusal(consent, now) === undefined,
  };
}

/**
 * The PSU approved: a short-term consent is valid for SHORT_TERM_VALIDITY_MS from now, an account
 * consent until the date it was asked for.
 */
async function approveConsent(
  trx: Db,
  context: ServiceContext,
  consent: Consent,
  psuId: string,
): Promise<void> {
  // On the app's clock (a sandbox app may have moved it): the PSU's pages run on real time.
  const now = await timeOfApp(context, trx, consent.clientId);
  // A sandbox scenario: the consent expires at once, or the PSU revokes it at the bank right away.
  const after = context.policy.consentAfterApproval(psuId);
  const until =
    after === 'expires'
      ? now
      : consent.kind === 'short-term' || consent.validUntil === null
        ? new Date(now.getTime() + SHORT_TERM_VALIDITY_MS)
        : consent.validUntil;
  if (!(await validateConsent(trx, consent.consentId, psuId, until))) {
    throw new Error(`consent ${consent.consentId} was not awaiting approval`);
  }
  if (after === 'revoked') await revokeConsentByPsu(trx, consent.consentId, now);
}
