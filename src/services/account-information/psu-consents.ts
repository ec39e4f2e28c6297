// The PSU's own view of the consents given to TPPs (issue 39, PSD3/PSR permission dashboard): which
// TPP reads what, until when, how often; and the PSU's withdrawal, after which every token and refresh
// token of the consent reads nothing more (consents.ts consentRefusal: CONSENT_INVALID; the refresh
// grant: invalid_grant). Only the PSU's own consents are reachable: another's id is unknown here.
import { dayBefore } from '../../domain/dates.ts';
import { revokeConsentByPsu } from '../../store/consents-repository.ts';
import { lockPsuConsent, psuConsents } from '../../store/psu-dashboard-repository.ts';
import { type ServiceContext, today } from '../shared/context.ts';
import type { PsuActor } from '../shared/psu-actor.ts';
import { MAX_FREQUENCY_PER_DAY } from './consents.ts';
import { SHORT_TERM_READS } from './short-term-consent.ts';

export interface PsuConsentView {
  readonly consentId: string;
  readonly tppName: string;
  readonly access: string;
  /** The last day the consent grants (account consents), or the instant (short-term ones). */
  readonly validUntil: string;
  /** The last day the TPP read without the PSU present, or undefined. */
  readonly lastAccess: string | undefined;
  readonly accessesPerDay: string;
}

export async function listPsuConsents(context: ServiceContext, psu: PsuActor): Promise<PsuConsentView[]> {
  const rows = await psuConsents(context.db, psu.psuId, context.clock(), today(context));
  return rows.map((row) => {
    const shortTerm = row.kind === 'short-term';
    return {
      consentId: row.consentId,
      tppName: row.appName,
      access: shortTerm
        ? `Accounts, balances and cards: ${row.readsLeft ?? 0} of ${SHORT_TERM_READS} reads left`
        : 'Accounts, balances, card accounts and transactions (all accounts)',
      validUntil: shortTerm
        ? row.validUntil.toISOString()
        : dayBefore(row.validUntil, context.config.timeZone),
      lastAccess: row.lastAccessDay ?? undefined,
      accessesPerDay: shortTerm
        ? 'Only while you are present'
        : `Up to ${row.frequencyPerDay ?? MAX_FREQUENCY_PER_DAY} a day per account without you; ${row.readsToday} today`,
    };
  });
}

/**
 * The PSU withdraws a consent: the one way a PSU ends a consent from the dashboard (the audit trail
 * records the PSU here as the actor). Answers false for a consent that is not the PSU's (nothing
 * changes); withdrawing one that no longer grants changes nothing and answers true.
 */
export async function withdrawConsentByPsu(
  context: ServiceContext,
  psu: PsuActor,
  consentId: string,
): Promise<boolean> {
  return context.db.transaction(async (trx) => {
    const consent = await lockPsuConsent(trx, psu.psuId, consentId);
    if (consent === undefined) return false;
    if (consent.status === 'valid') await revokeConsentByPsu(trx, consent.consentId, context.clock(), psu);
    return true;
  });
}
