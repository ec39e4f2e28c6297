// Account consents (AIS): the TPP asks with a client-credentials token (scope AIS), the PSU authorizes
// scope AIS:<consentId> through the redirect or decoupled flow, and the TPP then reads accounts, card
// accounts, balances and transactions with the PSU's token until the consent's date, at most
// `frequencyPerDay` times a day per resource without the PSU present (PSD2 RTS art. 36(5)).

import type { App } from '../../domain/apps.ts';
import type { AuditActor } from '../../domain/audit.ts';
import type { Consent, ConsentKind } from '../../domain/consents.ts';
import { addDays, dayBefore, isIsoDate, startOfDay } from '../../domain/dates.ts';
import { ApiError, apiError } from '../../domain/errors.ts';
import {
  acceptedContent,
  type NotificationContent,
  type NotificationSubscription,
  subscriptionColumns,
} from '../../domain/notifications.ts';
import { formatResourceScope, parseResourceScope } from '../../domain/scope.ts';
import { newId } from '../../domain/secrets.ts';
import {
  countConsentRead,
  expireConsents,
  findConsent,
  insertConsent,
  recordConsentExpired,
  terminateConsent,
} from '../../store/consents-repository.ts';
import { requireClientToken, requirePsuToken, requireSameApp, type TokenGrant } from '../access/tokens.ts';
import { type ServiceContext, today } from '../shared/context.ts';
import { type Answer, answerOnce } from '../shared/idempotency.ts';
import { type ScaMethod, scaMethods } from '../shared/sca-methods.ts';

/** The longest validity a consent may ask for, in days (PSD2 RTS art. 10a: 180 days). */
const MAX_VALIDITY_DAYS = 180;
/** Reads a day per resource without the PSU present (PSD2 RTS art. 36(5)). */
export const MAX_FREQUENCY_PER_DAY = 4;

/** The two account-information APIs: the general one, and Great Britain's (accounts-gb). */
export type AisApi = 'general' | 'gb' | 'lu';
const KIND_OF: Record<AisApi, ConsentKind> = { general: 'accounts', gb: 'accounts-gb', lu: 'accounts-lu' };
const API_NAMES: Record<ConsentKind, string> = {
  accounts: 'the general accounts API',
  'accounts-gb': 'the GB accounts API',
  'accounts-lu': 'the Luxembourg accounts API',
  'short-term': 'a short-term consent',
};
/** Where consents of each API are authorized: decoupled (mobile e-ID) only for Sweden's. */
const COUNTRY_OF: Record<AisApi, string> = { general: 'SE', gb: 'GB', lu: 'LU' };

export interface ConsentRequest {
  readonly access: 'ALL_ACCOUNTS';
  readonly validUntil?: string;
  readonly frequencyPerDay?: number;
}

export interface ConsentCreated {
  readonly consentId: string;
  readonly consentStatus: 'received';
  readonly scaMethods: readonly ScaMethod[];
  readonly tppNotificationContentPreferred?: readonly NotificationContent[];
}

export interface ConsentView {
  readonly consentId: string;
  readonly consentStatus: string;
  readonly access: 'ALL_ACCOUNTS';
  readonly validUntil: string;
  readonly frequencyPerDay: number;
}

export async function createAccountConsent(
  context: ServiceContext,
  request: {
    app: App;
    grant: TokenGrant;
    /** The Idempotency-Key header, if sent. */
    idempotencyKey: string | undefined;
    api: AisApi;
    body: ConsentRequest;
    psuId: string | undefined;
    baseUrl: string;
    /** Who asks, for the audit trail. */
    actor?: AuditActor;
    /** The TPP's subscription to the consent's status notifications (TPP-Notification-URI), if any. */
    notification?: NotificationSubscription | undefined;
  },
): Promise<Answer<ConsentCreated>> {
  requireClientToken(request.grant, request.app.clientId, 'AIS');
  const day = today(context);
  if (request.body.validUntil !== undefined && !isIsoDate(request.body.validUntil)) {
    throw apiError('FORMAT_ERROR', 'validUntil must be an ISO date (YYYY-MM-DD)', 'validUntil');
  }
  const validUntil = request.body.validUntil ?? addDays(day, MAX_VALIDITY_DAYS);
  if (validUntil < day || validUntil > addDays(day, MAX_VALIDITY_DAYS)) {
    throw apiError(
      'FORMAT_ERROR',
      `validUntil must be a date from today to ${MAX_VALIDITY_DAYS} days ahead`,
      'validUntil',
    );
  }
  // PSU-ID is not looked up: whoever it names, customer or not, only that PSU can approve the consent
  // (authorizables.ts psuRefusal); an answer here would tell the TPP who is the bank's customer.
  const frequencyPerDay = request.body.frequencyPerDay ?? MAX_FREQUENCY_PER_DAY;
  const consentId = newId();
  return answerOnce(
    context,
    {
      clientId: request.app.clientId,
      operation: 'consent',
      key: request.idempotencyKey,
      request: {
        api: request.api,
        body: request.body,
        psuId: request.psuId ?? null,
        notification: request.notification,
      },
    },
    async (trx) => {
      await insertConsent(
        trx,
        {
          consentId,
          clientId: request.app.clientId,
          kind: KIND_OF[request.api],
          access: 'ALL_ACCOUNTS',
          status: 'received',
          // The end of the last valid day: the next day's midnight in the bank's time zone.
          validUntil: startOfDay(addDays(validUntil, 1), context.config.timeZone),
          frequencyPerDay,
          requestedPsuId: request.psuId ?? null,
          createdAt: context.clock(),
          ...subscriptionColumns(request.notification),
        },
        request.actor,
      );
      return {
        statusCode: 201,
        body: {
          consentId,
          consentStatus: 'received',
          scaMethods: scaMethods(request.baseUrl, COUNTRY_OF[request.api]),
          ...acceptedContent(request.notification),
        },
      };
    },
  );
}

/**
 * A consent of this app and API, to the client-credentials token (scope AIS) or to the PSU token of the
 * consent. Unknown and others' consents are alike: CONSENT_UNKNOWN.
 */
async function consentOfApp(
  context: ServiceContext,
  app: App,
  grant: TokenGrant,
  api: AisApi,
  consentId: string,
): Promise<Consent> {
  if (grant.kind === 'client_credentials') requireClientToken(grant, app.clientId, 'AIS');
  else requirePsuToken(grant, app.clientId, formatResourceScope({ service: 'AIS', resourceId: consentId }));
  const consent = await findConsent(context.db, consentId);
  if (consent === undefined || consent.clientId !== app.clientId || consent.kind !== KIND_OF[api]) {
    throw apiError('CONSENT_UNKNOWN', 'The consent is not one of this app');
  }
  return consent;
}

/** The status a TPP reads: a valid consent past its date has expired. */
function statusNow(consent: Consent, now: Date): string {
  if (consent.status === 'valid' && consent.validUntil !== null && consent.validUntil <= now)
    return 'expired';
  return consent.status;
}

export async function readConsent(
  context: ServiceContext,
  app: App,
  grant: TokenGrant,
  api: AisApi,
  consentId: string,
): Promise<ConsentView> {
  const consent = await consentOfApp(context, app, grant, api, consentId);
  return {
    consentId,
    consentStatus: statusNow(consent, context.clock()),
    access: 'ALL_ACCOUNTS',
    validUntil: dayBefore(consent.validUntil!, context.config.timeZone),
    frequencyPerDay: consent.frequencyPerDay!,
  };
}

export async function readConsentStatus(
  context: ServiceContext,
  app: App,
  grant: TokenGrant,
  api: AisApi,
  consentId: string,
): Promise<{ consentStatus: string }> {
  const consent = await consentOfApp(context, app, grant, api, consentId);
  return { consentStatus: statusNow(consent, context.clock()) };
}

/** DELETE: the TPP ends the consent; its tokens and refresh tokens read nothing more. Idempotent. */
export async function deleteConsent(
  context: ServiceContext,
  app: App,
  grant: TokenGrant,
  api: AisApi,
  consentId: string,
  actor?: AuditActor,
): Promise<void> {
  await consentOfApp(context, app, grant, api, consentId);
  await terminateConsent(context.db, consentId, context.clock(), actor);
}

/** Why a consent grants no access now, or undefined when it does. */
export function consentRefusal(consent: Consent, now: Date): ApiError | undefined {
  if (consent.status === 'terminatedByTpp') {
    return apiError('CONSENT_INVALID', 'The consent was ended by the TPP');
  }
  if (consent.status === 'revokedByPsu')
    return apiError('CONSENT_INVALID', 'The consent was revoked by the PSU');
  if (consent.status !== 'valid' && consent.status !== 'expired') {
    return apiError('CONSENT_INVALID', 'The consent is not valid');
  }
  if (consent.status === 'expired' || consent.validUntil === null || consent.validUntil <= now) {
    return apiError('CONSENT_EXPIRED', 'The consent has expired');
  }
  return undefined;
}

/** What a read of account information is: the API, the resource (for the daily count), PSU present or not. */
export interface AisRead {
  readonly api: AisApi;
  readonly resource: string;
  readonly psuPresent: boolean;
}

/**
 * The consent behind an account-information read with a PSU token (scope AIS:<consentId>): it must be
 * this app's, of this API, valid and unexpired; a read without the PSU present counts against the
 * day's frequency (429 ACCESS_EXCEEDED beyond it). Answers the consenting PSU.
 */
export async function consentedPsu(
  context: ServiceContext,
  app: App,
  grant: TokenGrant,
  read: AisRead,
): Promise<string> {
  requireSameApp(grant, app.clientId);
  const parsed = parseResourceScope(grant.scope);
  if (grant.kind === 'client_credentials' || parsed?.service !== 'AIS') {
    throw apiError('TOKEN_INVALID', 'This call needs the PSU access token of an account consent');
  }
  const consentId = parsed.resourceId;
  // Read with the token (services/access/tokens.ts) unless the grant came otherwise.
  const consent =
    grant.consent === undefined ? await findConsent(context.db, consentId) : (grant.consent ?? undefined);
  if (consent === undefined || consent.clientId !== app.clientId || consent.psuId !== grant.psuId) {
    throw apiError('CONSENT_UNKNOWN', 'The access token belongs to no consent of this app');
  }
  if (consent.kind !== KIND_OF[read.api]) {
    throw apiError(
      'CONSENT_INVALID',
      `The consent was given for ${API_NAMES[consent.kind]}, not ${API_NAMES[KIND_OF[read.api]]}`,
    );
  }
  const refusal = consentRefusal(consent, context.clock());
  if (refusal !== undefined) {
    // The first refusal of an expired consent is its expiry's audit record (no status says it expired).
    if (refusal.messages[0]?.code === 'CONSENT_EXPIRED') await recordConsentExpired(context.db, consent);
    throw refusal;
  }
  if (!read.psuPresent) {
    const counted = await countConsentRead(context.db, {
      consentId,
      day: today(context),
      resource: read.resource,
      limit: consent.frequencyPerDay ?? MAX_FREQUENCY_PER_DAY,
    });
    if (!counted) {
      throw new ApiError({
        code: 'ACCESS_EXCEEDED',
        text: `The consent allows ${consent.frequencyPerDay} reads a day of this resource without the PSU (send PSU-IP-Address when the PSU is present)`,
      });
    }
  }
  return consent.psuId!;
}

/** The app's valid consents whose validity has passed on its clock now are written expired (sandbox clock). */
export function expireConsentsOfApp(context: ServiceContext, clientId: string): Promise<number> {
  return expireConsents(context.db, clientId, context.clock());
}

/**
 * Every app's valid consents whose validity has passed in real time are written expired (the scheduler's
 * turn), so that a TPP subscribed to the consent is told and its status answers `expired`. A sandbox
 * app's clock is never behind real time, so none expires here that its clock would not expire.
 */
export function expireDueConsents(context: ServiceContext): Promise<number> {
  return expireConsents(context.db, undefined, context.clock());
}
