// Authorization codes (spec row 8): issued for the PSU's approval, single-use, short-lived, bound to
// everything the authorization request was asked with; and who approves a resource.

import type { App } from '../../domain/apps.ts';
import type { AuditActor } from '../../domain/audit.ts';
import { hashSecret, newSecret } from '../../domain/secrets.ts';
import { recordEvents } from '../../store/audit/record.ts';
import { notifyScaStep } from '../../store/notifications/sca.ts';
import { insertCode } from '../../store/tokens-repository.ts';
import type { Authorizable } from '../shared/authorizables.ts';
import type { ServiceContext } from '../shared/context.ts';

/** A checked authorization request: what the PSU is asked to approve, and for whom. */
export interface AuthorizationRequest {
  readonly app: App;
  readonly redirectUri: string;
  readonly state: string;
  readonly scope: string;
  /** The payment, signing basket or consent the scope names. */
  readonly resource: Authorizable;
  readonly codeChallenge: string | null;
  /** Who asked, for the audit trail. */
  readonly actor?: AuditActor | undefined;
}

export async function issueCode(
  context: ServiceContext,
  request: AuthorizationRequest,
  psuId: string,
): Promise<string> {
  const code = newSecret();
  const now = context.clock();
  await insertCode(context.db, {
    codeHash: hashSecret(code),
    clientId: request.app.clientId,
    redirectUri: request.redirectUri,
    scope: request.scope,
    psuId,
    codeChallenge: request.codeChallenge,
    expiresAt: new Date(now.getTime() + context.policy.codeLifetimeSeconds * 1000),
    createdAt: now,
    actor: request.actor,
  });
  return code;
}

/**
 * A refused, denied or cancelled authorization in the audit trail, with the TPP's SCA notification of
 * it when it subscribed (nothing else is written for it). `outcome`: `denied` (the PSU said no, or may not), `cancelled`.
 */
export async function recordAuthorizationRefused(
  context: ServiceContext,
  request: {
    readonly app: Pick<AuthorizationRequest['app'], 'clientId' | 'tppId'>;
    readonly scope: string;
    readonly actor?: AuditActor | undefined;
  },
  outcome: 'denied' | 'cancelled' | 'refused',
  psuId: string | null,
  reason: string,
): Promise<void> {
  await context.db.transaction(async (trx) => {
    await recordEvents(trx, [
      {
        ...request.actor,
        appId: request.app.clientId,
        tppId: request.app.tppId ?? request.actor?.tppId ?? null,
        psuId: psuId ?? request.actor?.psuId ?? null,
        event: `authorization.${outcome}`,
        outcome,
        resource: request.scope,
        detail: { reason },
      },
    ]);
    // The TPP's SCA notification of the failure, when it subscribed.
    await notifyScaStep(trx, request.scope, 'failed');
  });
}

/**
 * Who authorizes where nobody logs in (the sandbox's redirect, the decoupled flow): the PSU the
 * resource names (the debtor accounts' holder, the PSU-ID given), else whom the policy names.
 */
export function authorizingPsu(context: ServiceContext, resource: Authorizable): string | null {
  return resource.psuId ?? context.policy.fallbackPsu(resource);
}
