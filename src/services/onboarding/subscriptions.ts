// POST /psd2/v1/subscriptions (spec rows 4 and 5): an enrolled TPP registers an app with its first
// product subscription, or adds one product to an app of its own. One product per request, one
// redirect URI per app; a product needs its scope in the TPP's certificate (live).

import { randomUUID } from 'node:crypto';
import type { PeerIdentity } from '../../certificates/qwac.ts';
import { findApiProduct } from '../../domain/api-products.ts';
import type { AuditActor } from '../../domain/audit.ts';
import { ApiError, apiError, unknownResource } from '../../domain/errors.ts';
import { findApp, insertApp } from '../../store/apps-repository.ts';
import { recordEvents } from '../../store/audit/record.ts';
import { addSubscription, findTpp } from '../../store/tpps-repository.ts';
import { requireQwac } from '../access/live-access.ts';
import type { TokenGrant } from '../access/tokens.ts';
import type { ServiceContext } from '../shared/context.ts';
import { type Answer, answerOnce } from '../shared/idempotency.ts';

export interface SubscriptionRequestBody {
  readonly app?: {
    readonly name: string;
    readonly description: string;
    readonly oauthRedirectURI: string;
    /** Where the app's status notifications may go in live mode (lower-case host names). */
    readonly notificationHosts?: readonly string[];
  };
  readonly clientId?: string;
  readonly product: { readonly name: string };
}

export interface SubscriptionResponse {
  readonly name: string;
  readonly description: string;
  readonly oauthRedirectURI: string;
  readonly notificationHosts: readonly string[];
  readonly clientId: string;
  readonly subscription: {
    readonly subscriptionId: string;
    readonly product: { readonly name: string; readonly version: string; readonly scope: string };
  };
}

export async function subscribe(
  context: ServiceContext,
  request: {
    tppId: string;
    /** The Idempotency-Key header, if sent. */
    idempotencyKey: string | undefined;
    grant: TokenGrant;
    peer: PeerIdentity;
    body: SubscriptionRequestBody;
    /** Who asks, for the audit trail. */
    actor?: AuditActor;
  },
): Promise<Answer<SubscriptionResponse>> {
  const { grant, body } = request;
  if (
    grant.kind !== 'client_credentials' ||
    grant.scope !== 'PSD2-ADMIN' ||
    grant.clientId !== request.tppId
  ) {
    throw apiError(
      'TOKEN_INVALID',
      'This call needs the PSD2-ADMIN token of the TPP named in X-Gateway-Client-Id',
    );
  }
  const tpp = await findTpp(context.db, request.tppId);
  if (tpp === undefined)
    throw apiError('CLIENT_UNKNOWN', 'X-Gateway-Client-Id names no enrolled TPP', 'X-Gateway-Client-Id');
  const product = findApiProduct(body.product.name);
  if (product === undefined)
    throw apiError('PRODUCT_UNKNOWN', 'product.name names no API product of the bank', 'product.name');
  if (context.mtls || request.peer.kind !== 'none') {
    const qwac = requireQwac(request.peer);
    if (!qwac.scopes.includes(product.scope)) {
      throw apiError('ROLE_INVALID', `${product.name} needs the ${product.scope} role in the certificate`);
    }
  }
  if ((body.app === undefined) === (body.clientId === undefined)) {
    throw apiError(
      'FORMAT_ERROR',
      'send app (to register an app) or clientId (to add a subscription), not both',
    );
  }
  const existing = body.clientId === undefined ? undefined : await findApp(context.db, body.clientId);
  const answer = await answerOnce(
    context,
    { clientId: request.tppId, operation: 'subscribe', key: request.idempotencyKey, request: body },
    async (trx): Promise<Answer<SubscriptionResponse>> => {
      let app = existing;
      if (body.app !== undefined) {
        checkRedirectUri(context, body.app.oauthRedirectURI);
        const clientId = context.policy.newClientId();
        app = {
          clientId,
          name: body.app.name,
          description: body.app.description,
          redirectUri: body.app.oauthRedirectURI,
          seeded: false,
          notificationHosts: body.app.notificationHosts ?? [],
        };
        await insertApp(trx, { ...app, tppId: tpp.tppId });
        await recordEvents(trx, [
          {
            ...request.actor,
            tppId: tpp.tppId,
            appId: clientId,
            event: 'app.registered',
            outcome: 'ok',
            resource: clientId,
            detail: {
              name: app.name,
              redirectUri: app.redirectUri,
              notificationHosts: app.notificationHosts,
            },
          },
        ]);
      } else if (app === undefined || app.tppId !== tpp.tppId) {
        // Another TPP's app answers as an unknown client id does.
        throw unknownResource('clientId names no app of this TPP', 'clientId');
      }
      const subscriptionId = randomUUID();
      if (
        !(await addSubscription(trx, {
          subscriptionId,
          clientId: app.clientId,
          productName: product.name,
          createdAt: context.clock(),
        }))
      ) {
        throw apiError('STATUS_INVALID', `App ${app.clientId} is subscribed to ${product.name} already`);
      }
      await recordEvents(trx, [
        {
          ...request.actor,
          tppId: tpp.tppId,
          appId: app.clientId,
          event: 'app.subscribed',
          outcome: 'ok',
          resource: app.clientId,
          detail: { product: product.name, subscriptionId },
        },
      ]);
      return {
        statusCode: 200,
        body: {
          name: app.name,
          description: app.description,
          oauthRedirectURI: app.redirectUri,
          notificationHosts: app.notificationHosts ?? [],
          clientId: app.clientId,
          subscription: {
            subscriptionId,
            product: { name: product.name, version: product.version, scope: product.scope },
          },
        },
      };
    },
  );
  // Committed: this process sees the new subscription at once (others within the cache's 30 s).
  context.caches.subscriptions.delete(answer.body.clientId);
  return answer;
}

/** One absolute redirect URI (https live), without a fragment: another URI needs another app. */
function checkRedirectUri(context: ServiceContext, uri: string): void {
  let parsed: URL | undefined;
  try {
    parsed = /[\s,]/.test(uri) ? undefined : new URL(uri);
  } catch {
    parsed = undefined;
  }
  const protocols = context.policy.redirectUriProtocols;
  if (parsed === undefined || !protocols.includes(parsed.protocol) || parsed.hash !== '') {
    throw new ApiError({
      code: 'FORMAT_ERROR',
      path: 'app.oauthRedirectURI',
      text: `app.oauthRedirectURI must be one absolute ${protocols.join(' or ')} URI without a fragment; another URI needs another app`,
    });
  }
}
