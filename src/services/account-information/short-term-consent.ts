// The Swedish short-term consent (spec rows 14 and 15): an individual PSU lets the TPP read the account
// list, balances and cards a few times within a short validity, authorized with a PIS scope.
import type { App } from '../../domain/apps.ts';
import type { CorporateHeaders } from '../../domain/corporate.ts';
import { ApiError, apiError } from '../../domain/errors.ts';
import { newId } from '../../domain/secrets.ts';
import { findConsent, insertConsent, useConsentRead } from '../../store/consents-repository.ts';
import { requireClientToken, type TokenGrant } from '../access/tokens.ts';
import type { ServiceContext } from '../shared/context.ts';
import { type Answer, answerOnce } from '../shared/idempotency.ts';
import { type ScaMethod, scaMethods } from '../shared/sca-methods.ts';
import {
  type AccountBase,
  accountBalances,
  accountBase,
  accountsWithBalances,
  type Balance,
} from './account-views.ts';

/** Reads a short-term consent allows, and for how long after the PSU's approval. */
export const SHORT_TERM_READS = 4;
export const SHORT_TERM_VALIDITY_MS = 20 * 60_000;

export interface ConsentResponse {
  readonly consentId: string;
  readonly consentStatus: string;
  readonly scaMethods: readonly ScaMethod[];
}

export async function createShortTermConsent(
  context: ServiceContext,
  request: {
    app: App;
    grant: TokenGrant;
    /** The Idempotency-Key header, if sent. */
    idempotencyKey: string | undefined;
    access: string;
    corporate: CorporateHeaders;
    /** PSU-ID: the individual who is to approve, when the TPP knows it (optional). */
    psuId: string | undefined;
    baseUrl: string;
  },
): Promise<Answer<ConsentResponse>> {
  requireClientToken(request.grant, request.app.clientId);
  if (request.corporate.id !== undefined || request.corporate.type !== undefined) {
    throw apiError('PRODUCT_INVALID', 'short-term consents are for individual customers only');
  }
  // A PSU-ID that names a corporate customer can never approve: said now rather than at authorization.
  // Any other PSU-ID binds the consent to that PSU, as an account consent's does.
  if (request.psuId !== undefined) {
    const psu = await context.psuDirectory.findPsu(request.psuId);
    if (psu?.customerType === 'corporate') {
      throw apiError(
        'FORMAT_ERROR',
        'PSU-ID names a corporate customer: short-term consents are for individual customers only',
        'PSU-ID',
      );
    }
  }
  const consentId = newId();
  return answerOnce(
    context,
    {
      clientId: request.app.clientId,
      operation: 'short-term-consent',
      key: request.idempotencyKey,
      request: { access: request.access, psuId: request.psuId ?? null },
    },
    async (trx) => {
      await insertConsent(trx, {
        consentId,
        clientId: request.app.clientId,
        kind: 'short-term',
        access: 'ALL_ACCOUNTS',
        status: 'received',
        readsLeft: SHORT_TERM_READS,
        requestedPsuId: request.psuId ?? null,
        createdAt: context.clock(),
      });
      return {
        statusCode: 201,
        body: { consentId, consentStatus: 'received', scaMethods: scaMethods(request.baseUrl, 'SE') },
      };
    },
  );
}

export interface AccountView extends AccountBase {
  readonly balances: readonly Balance[];
  readonly cards: readonly { maskedPan: string; name: string }[];
}

/** GET /psd2/se/v2/payments/private/accounts with the PSU token of a valid short-term consent. */
export async function readConsentedAccounts(
  context: ServiceContext,
  app: App,
  grant: TokenGrant,
): Promise<{ accounts: AccountView[] }> {
  const consentId = /^PIS:(.+)$/.exec(grant.scope)?.[1];
  if (grant.kind === 'client_credentials' || grant.clientId !== app.clientId || consentId === undefined) {
    throw apiError('TOKEN_INVALID', 'This call needs the PSU access token of a short-term consent');
  }
  const consent = await findConsent(context.db, consentId);
  if (
    consent === undefined ||
    consent.kind !== 'short-term' ||
    consent.clientId !== app.clientId ||
    consent.psuId !== grant.psuId
  ) {
    throw apiError('CONSENT_UNKNOWN', 'The access token belongs to no short-term consent of this app');
  }
  const now = context.clock();
  const used = await useConsentRead(context.db, consentId, now);
  if (used === undefined) {
    if (consent.validUntil !== null && consent.validUntil.getTime() <= now.getTime()) {
      throw apiError(
        'CONSENT_EXPIRED',
        `The short-term consent expired at ${consent.validUntil.toISOString()}`,
      );
    }
    if (consent.status === 'valid') {
      throw new ApiError({
        code: 'ACCESS_EXCEEDED',
        text: `The short-term consent allows ${SHORT_TERM_READS} reads`,
      });
    }
    throw apiError('CONSENT_INVALID', 'The short-term consent is not valid');
  }
  const accounts = await accountsWithBalances(context, consent.psuId!);
  const cards = await context.psuDirectory.cardsOf(accounts.map((account) => account.accountId));
  return {
    accounts: accounts.map((account) =>
      Object.assign(accountBase(account), {
        balances: accountBalances(account.currency, account.balanceMinor),
        cards: cards
          .filter((card) => card.accountId === account.accountId)
          .map(({ maskedPan, name }) => ({ maskedPan, name })),
      }),
    ),
  };
}
