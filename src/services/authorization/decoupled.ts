// The Swedish decoupled authorization (spec rows 9-11, API-NOTES "Decoupled"): the TPP starts an
// e-ID order for a payment, polls the token URL no sooner than sleep_time apart, and gets the PSU
// token when the PSU has identified in the e-ID app; or cancels.
import { isIP } from 'node:net';
import type { PeerIdentity } from '../../certificates/qwac.ts';
import type { AuditActor } from '../../domain/audit.ts';
import { pollOutcome, SLEEP_TIME_MS } from '../../domain/eid.ts';
import { OAuthError } from '../../domain/errors.ts';
import { parseResourceScope } from '../../domain/scope.ts';
import { hashSecret, newSecret } from '../../domain/secrets.ts';
import type { EidCollect } from '../../ports/eid-provider.ts';
import { recordEvents } from '../../store/audit/record.ts';
import type { Db } from '../../store/database.ts';
import {
  findSession,
  insertSession,
  lockSession,
  type SessionRow,
  updateSession,
} from '../../store/decoupled-repository.ts';
import { notifyScaStep } from '../../store/notifications/sca.ts';
import { appOf } from '../access/apps.ts';
import { presentsBoundCertificate, registeredCertificate } from '../access/live-access.ts';
import { issuePsuTokens } from '../access/tokens.ts';
import type { Authorizable } from '../shared/authorizables.ts';
import type { ServiceContext } from '../shared/context.ts';
import type { DecoupledResult } from '../shared/metrics.ts';
import type { Pacing } from '../shared/policy.ts';
import { authorizingPsu } from './codes.ts';
import { cancelOrder, collectOrder, startOrder } from './eid-orders.ts';

export interface InitRequest {
  readonly client_id: string;
  readonly scope: string;
  readonly psu_client_ip: string;
  readonly bisa_same_device: boolean;
  /** Version 1 (mbid): the PSU who must sign, by personal number. */
  readonly psu_id?: string;
}

/** Where the session's token and cancel calls go: version 2 (eid) or version 1 (mbid) paths, under a prefix. */
export interface SessionLinks {
  readonly baseUrl: string;
  readonly version: 'eid/{action}/2.0' | 'mbid/{action}/1.0';
}

interface Link {
  readonly href: string;
  readonly hints: { readonly allow: readonly ['POST'] };
}

export interface InitResponse {
  readonly auto_start_token?: string;
  readonly qr_code?: string;
  readonly sleep_time: number;
  readonly _links: { readonly token: Link; readonly cancel: Link };
}

export async function initAuthorization(
  context: ServiceContext,
  request: InitRequest,
  links: SessionLinks,
  peer: PeerIdentity = { kind: 'none' },
): Promise<InitResponse> {
  const app = await appOf(context, request.client_id);
  if (app === undefined) throw new OAuthError('unauthorized_client', 'client_id is not a registered app');
  const thumbprint = await certificateOfApp(context, app.tppId ?? null, peer);
  if (isIP(request.psu_client_ip) === 0) {
    throw new OAuthError('invalid_request', 'psu_client_ip must be an IPv4 or IPv6 address');
  }
  const resource = await resourceInScope(context, request.scope, app.clientId);
  const psuId = await signingPsu(context, resource, request.psu_id);
  if (psuId === null) {
    throw new OAuthError(
      'invalid_request',
      'a short-term consent is authorized through the redirect flow in live mode',
    );
  }
  const now = context.clock();
  const order = await startOrder(
    context,
    { personalNumber: psuId, endUserIp: request.psu_client_ip, visibleText: resource.visibleText },
    now,
  );
  const sessionId = newSecret();
  await insertSession(context.db, {
    sessionHash: hashSecret(sessionId),
    clientId: app.clientId,
    scope: request.scope,
    psuId,
    psuClientIp: request.psu_client_ip,
    sameDevice: request.bisa_same_device,
    orderRef: order.orderRef,
    sleepMs: SLEEP_TIME_MS,
    state: 'active',
    certThumbprint: thumbprint,
    // The early-poll window opens when the TPP can have the answer: after the e-ID started the order.
    createdAt: context.clock(),
  });
  context.metrics.decoupledSessionStarted();
  const query = `sessionId=${encodeURIComponent(sessionId)}`;
  const link = (action: string): Link => ({
    href: `${links.baseUrl}/decoupled/${links.version.replace('{action}', action)}?${query}`,
    hints: { allow: ['POST'] },
  });
  const start = request.bisa_same_device
    ? { auto_start_token: order.autoStartToken }
    : { qr_code: order.qrCode };
  return { ...start, sleep_time: SLEEP_TIME_MS, _links: { token: link('token'), cancel: link('cancel') } };
}

/**
 * Who signs: the PSU the TPP names in psu_id (version 1), if that PSU may approve the resource (the
 * debtor accounts' holder, the PSU-ID given with a consent, an individual for a short-term consent);
 * without psu_id, the PSU the resource names, else whom the policy names (the sandbox's test PSU).
 * Only the resource's rule is asked here, and it answers an id the bank does not know as a known PSU
 * who may not approve. Whether the signer is the bank's customer is not asked before the person has
 * signed with their own e-ID (signerKnown, at completion): the init answers alike for any personal
 * number, and no answer to a TPP says whether an id is the bank's customer (issue 37).
 */
async function signingPsu(
  context: ServiceContext,
  resource: Authorizable,
  psuId: string | undefined,
): Promise<string | null> {
  const signer = psuId ?? authorizingPsu(context, resource);
  if (signer === null) return null;
  const refusal = psuId === undefined ? undefined : await resource.psuRefusal(psuId);
  if (refusal !== undefined) throw new OAuthError('invalid_request', `psu_id: ${refusal}`);
  return signer;
}

/** What ends a session whose PSU signed but cannot approve with the e-ID: the bank does not know them. */
const cannotSign = () => new OAuthError('mbid_error', 'the PSU cannot sign this with the e-ID');

/**
 * The session's PSU has signed: the bank's word on them, asked outside the transaction that records the
 * approval (with the bank's systems it writes the PSU's reference row, which the token needs).
 */
async function signerKnown(context: ServiceContext, collected: EidCollect, psuId: string): Promise<boolean> {
  if (collected.state.status !== 'complete' || collected.state.personalNumber !== psuId) return false;
  return (await context.psuDirectory.findPsu(psuId)) !== undefined;
}

/** Under mutual TLS: the presented certificate must be registered for the app's TPP; answers its thumbprint. */
async function certificateOfApp(
  context: ServiceContext,
  tppId: string | null,
  peer: PeerIdentity,
): Promise<string | null> {
  if (!context.mtls) return null;
  const certificate = await registeredCertificate(context, peer);
  if (certificate === undefined || certificate.tppId !== tppId) {
    throw new OAuthError('unauthorized_client', 'the certificate does not belong to the TPP of client_id');
  }
  return certificate.thumbprint;
}

async function resourceInScope(
  context: ServiceContext,
  scope: string,
  clientId: string,
): Promise<Authorizable> {
  const parsed = parseResourceScope(scope);
  if (parsed === undefined)
    throw new OAuthError('invalid_request', 'scope must be PIS:<paymentId> or AIS:<consentId>');
  const resource = await context.authorizables.find(parsed);
  if (resource === undefined || resource.clientId !== clientId) {
    throw new OAuthError('invalid_request', 'scope names no payment or consent of this app');
  }
  if (resource.refusal !== undefined) throw new OAuthError('invalid_request', resource.refusal);
  if (resource.country !== 'SE') {
    throw new OAuthError('invalid_request', 'decoupled authorization is offered for Swedish payments only');
  }
  return resource;
}

export type TokenPollResponse =
  | { readonly result: 'IN_PROGRESS'; readonly sleep_time: number; readonly qr_code?: string }
  | { readonly result: 'USER_CANCEL' }
  | {
      readonly result: 'COMPLETE';
      readonly access_token: string;
      readonly token_type: 'Bearer';
      readonly expires_in: number;
    };

type PollAnswer = (
  | { readonly answer: TokenPollResponse }
  | {
      readonly error: OAuthError;
      /** The e-ID order to cancel once the session's end has committed. */
      readonly cancelOrder?: string;
    }
) & {
  /** The poll ended the session so: counted once that has committed. */
  readonly ended?: DecoupledResult;
};

/**
 * A poll in three steps, so that the e-ID provider is never asked inside our transaction: the session
 * is checked and the poll counted; the provider's order is collected; the result is recorded, if the
 * session is still active (a concurrent poll may have ended it: this one then says it has ended).
 */
export async function pollToken(
  context: ServiceContext,
  sessionId: string | undefined,
  caller: SessionCaller = { peer: { kind: 'none' } },
): Promise<TokenPollResponse> {
  const sessionHash = sessionHashOf(sessionId);
  const now = context.clock();
  // Errors that end the session are returned, not thrown, so that the session's end commits.
  const checked = await checkPoll(context, sessionHash, caller, now);
  if ('ended' in checked && checked.ended !== undefined) context.metrics.decoupledSessionEnded(checked.ended);
  if ('error' in checked) {
    if (checked.cancelOrder !== undefined) await cancelOrder(context, checked.cancelOrder, now);
    throw checked.error;
  }
  if ('answer' in checked) return checked.answer;
  const collected = await collectOrder(context, checked.session.orderRef, now);
  // What the PSU approves, found before the transaction that records the approval.
  const resource =
    collected.state.status === 'complete'
      ? await context.authorizables.find(parseResourceScope(checked.session.scope)!)
      : undefined;
  const known = await signerKnown(context, collected, checked.session.psuId);
  const outcome = await context.db.transaction((trx) =>
    recordPoll(context, trx, sessionHash, collected, { resource, known, actor: caller.actor }, now),
  );
  if (outcome.ended !== undefined) context.metrics.decoupledSessionEnded(outcome.ended);
  if ('error' in outcome) throw outcome.error;
  if (outcome.answer.result === 'COMPLETE') context.metrics.tokenIssued('decoupled');
  return outcome.answer;
}

/** Who calls a session's token or cancel link. */
export interface SessionCaller {
  /** The app the call names (X-Gateway-Client-Id or client_id), if it names one. */
  readonly clientId?: string | undefined;
  readonly peer: PeerIdentity;
  /** Who the audit records of the poll name: the poll that ends the session is the token's request. */
  readonly actor?: AuditActor | undefined;
}

/**
 * The audit record of how a session ends, written by the transaction that ends it: `granted` (the PSU
 * approved), `denied` when the e-ID says no for this PSU (another person signed, the bank does not know
 * them), `cancelled` when it ends undecided (cancelled in the app or by the TPP, expired, polled too
 * often, failed), with the reason; and the TPP's SCA notification of it.
 */
async function recordOutcome(
  trx: Db,
  session: SessionRow,
  actor: AuditActor | undefined,
  ...[outcome, reason]: ['granted'] | ['denied' | 'cancelled', string]
): Promise<void> {
  await recordEvents(trx, [
    {
      ...actor,
      event: `authorization.${outcome}`,
      outcome: outcome === 'granted' ? 'ok' : outcome,
      resource: session.scope,
      appId: session.clientId,
      psuId: session.psuId,
      ...(reason === undefined ? {} : { detail: { reason } }),
    },
  ]);
  // The TPP's SCA notification, when it subscribed: the decoupled flow has no code to carry it.
  await notifyScaStep(trx, session.scope, outcome === 'granted' ? 'finalised' : 'failed');
}

function sessionHashOf(sessionId: string | undefined): string {
  if (sessionId === undefined || sessionId === '')
    throw new OAuthError('invalid_request', 'sessionId is required');
  return hashSecret(sessionId);
}

const unknownSession = () => new OAuthError('invalid_request', 'sessionId is not known');

/**
 * The session, if the caller may see it: its own app, when the call names one, and under mutual TLS a
 * certificate of that app's TPP (presentsBoundCertificate, as for the token it ends in). Anyone else
 * learns nothing of it, not even that it exists: the answer is an unknown session's, and the session
 * goes on unchanged. Who owns a session never changes, so this is read outside the poll's lock.
 */
async function ownSession(
  context: ServiceContext,
  sessionHash: string,
  caller: SessionCaller,
): Promise<SessionRow | undefined> {
  const session = await findSession(context.db, sessionHash);
  if (session === undefined) return undefined;
  if (caller.clientId !== undefined && caller.clientId !== session.clientId) return undefined;
  if (session.certThumbprint === null) return session;
  const app = await appOf(context, session.clientId);
  const binding = { thumbprint: session.certThumbprint, tppId: app?.tppId ?? null };
  return (await presentsBoundCertificate(context, binding, caller.peer)) ? session : undefined;
}

/**
 * The session of a poll, if it may be polled: the caller's (ownSession), active. Where the policy paces
 * the PSU's sessions (live; a sandbox scenario) the poll is counted, under the session's lock.
 */
async function checkPoll(
  context: ServiceContext,
  sessionHash: string,
  caller: SessionCaller,
  now: Date,
): Promise<PollAnswer | { readonly session: SessionRow }> {
  const found = await ownSession(context, sessionHash, caller);
  if (found === undefined) return { error: unknownSession() };
  const refusal = pollRefusal(found);
  if (refusal !== undefined) return refusal;
  const pacing = context.policy.pacing(found.psuId);
  if (pacing === undefined) return { session: found };
  return context.db.transaction(async (trx) => {
    const session = (await lockSession(trx, sessionHash))!;
    return pollRefusal(session) ?? (await pace(trx, session, now, pacing, caller.actor)) ?? { session };
  });
}

function pollRefusal(session: SessionRow): PollAnswer | undefined {
  if (session.state !== 'active')
    return { error: new OAuthError('invalid_request', 'the session has ended') };
  return undefined;
}

async function recordPoll(
  context: ServiceContext,
  trx: Db,
  sessionHash: string,
  collected: EidCollect,
  signed: {
    /** What the PSU approves, if the order is complete. */
    readonly resource: Authorizable | undefined;
    /** The session's PSU signed and the bank knows them (signerKnown). */
    readonly known: boolean;
    /** The poll's request, for the `token.issued` record. */
    readonly actor: AuditActor | undefined;
  },
  now: Date,
): Promise<PollAnswer> {
  const session = await lockSession(trx, sessionHash);
  if (session === undefined || session.state !== 'active')
    return { error: new OAuthError('invalid_request', 'the session has ended') };
  const outcome = pollOutcome(collected.state);
  if (outcome.kind === 'result' && outcome.result === 'IN_PROGRESS') {
    return {
      answer: {
        result: 'IN_PROGRESS',
        sleep_time: session.sleepMs,
        ...(session.sameDevice ? {} : { qr_code: collected.qrCode }),
      },
    };
  }
  if (outcome.kind === 'complete') {
    if (collected.state.status !== 'complete' || collected.state.personalNumber !== session.psuId) {
      await updateSession(trx, sessionHash, { state: 'failed', endedAt: now });
      await recordOutcome(
        trx,
        session,
        signed.actor,
        'denied',
        'the identification was made by another person',
      );
      return {
        error: new OAuthError('mbid_error', 'the identification was made by another person'),
        ended: 'other_person',
      };
    }
    if (!signed.known) {
      await updateSession(trx, sessionHash, { state: 'failed', endedAt: now });
      const error = cannotSign();
      await recordOutcome(trx, session, signed.actor, 'denied', error.description);
      return { error, ended: 'failed' };
    }
    await updateSession(trx, sessionHash, { state: 'complete', endedAt: now });
    await signed.resource?.approve(trx, session.psuId);
    // The PSU's approval in the e-ID app, as the redirect flow's code records it: before its token.
    await recordOutcome(trx, session, signed.actor, 'granted');
    const token = await issuePsuTokens(trx, context, {
      kind: 'decoupled',
      clientId: session.clientId,
      scope: session.scope,
      psuId: session.psuId,
      codeHash: null,
      certThumbprint: session.certThumbprint,
      actor: signed.actor,
    });
    return { answer: { result: 'COMPLETE', ...token }, ended: 'complete' };
  }
  await updateSession(trx, sessionHash, { state: 'failed', endedAt: now });
  if (outcome.kind === 'result') {
    await recordOutcome(trx, session, signed.actor, 'cancelled', 'the PSU cancelled in the e-ID app');
    return { answer: { result: 'USER_CANCEL' }, ended: 'user_cancel' };
  }
  await recordOutcome(trx, session, signed.actor, 'cancelled', outcome.error);
  return {
    error: new OAuthError(outcome.error, outcome.description),
    ended: outcome.error === 'intent_expired' ? 'expired' : 'failed',
  };
}

/**
 * Polls sooner than sleep_time after the previous one, or for the first poll after the start, are
 * counted (spec "Limits": before the first call and between calls); too many early or in all end the
 * session.
 */
async function pace(
  trx: Db,
  session: SessionRow,
  now: Date,
  pacing: Pacing,
  actor: AuditActor | undefined,
): Promise<PollAnswer | undefined> {
  const since = session.lastPollAt ?? session.createdAt;
  const early = now.getTime() - since.getTime() < session.sleepMs;
  const polls = session.polls + 1;
  const earlyPolls = session.earlyPolls + (early ? 1 : 0);
  if (polls > pacing.maxPolls || earlyPolls > pacing.maxEarlyPolls) {
    await updateSession(trx, session.sessionHash, {
      state: 'failed',
      endedAt: now,
      polls,
      earlyPolls,
      lastPollAt: now,
    });
    await recordOutcome(trx, session, actor, 'cancelled', 'mbid_max_polling');
    return {
      cancelOrder: session.orderRef,
      ended: 'polled_too_often',
      error: new OAuthError(
        'mbid_max_polling',
        `polled too often: wait sleep_time (${session.sleepMs} ms) between polls`,
      ),
    };
  }
  await updateSession(trx, session.sessionHash, { polls, earlyPolls, lastPollAt: now });
  return undefined;
}

/**
 * Cancels the ongoing authorization; in the sandbox callable but without effect (spec row 11). Only the
 * session's own caller (ownSession) cancels it; anyone else gets an unknown session's answer.
 */
export async function cancelAuthorization(
  context: ServiceContext,
  sessionId: string | undefined,
  caller: SessionCaller = { peer: { kind: 'none' } },
): Promise<void> {
  const sessionHash = sessionHashOf(sessionId);
  if ((await ownSession(context, sessionHash, caller)) === undefined) throw unknownSession();
  const now = context.clock();
  const orderRef = await context.db.transaction(async (trx): Promise<string | undefined> => {
    const session = (await lockSession(trx, sessionHash))!;
    if (!context.policy.decoupledCancelEnds || session.state !== 'active') return undefined;
    await updateSession(trx, session.sessionHash, { state: 'cancelled', endedAt: now });
    await recordOutcome(trx, session, caller.actor, 'cancelled', 'cancelled by the TPP');
    return session.orderRef;
  });
  // The session's end has committed: the e-ID order ends too.
  if (orderRef !== undefined) {
    context.metrics.decoupledSessionEnded('cancelled');
    await cancelOrder(context, orderRef, now);
  }
}
