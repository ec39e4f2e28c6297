// The subscription headers of the initiation and consent routes (Berlin Group NextGenPSD2): read from
// the request, checked by the notifications context, and answered with what was accepted.
import { type TSchema, Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { contentHeader, type NotificationSubscription } from '../../domain/notifications.ts';
import { tppOf } from '../../http/request-context.ts';
import { header } from '../../http/tpp-headers.ts';
import { subscriptionOf } from '../../services/notifications/subscription.ts';
import type { ServiceContext } from '../../services/shared/context.ts';
import { answer } from '../shared/schemas.ts';

/** The request headers, for a route's header schema (and so the OpenAPI document). */
export const subscriptionHeaders = {
  'TPP-Notification-URI': Type.Optional(
    Type.String({
      description:
        "Where the status notifications of this resource go (docs/notifications.md). Live: https on a host of the app's notificationHosts, never a private address; sandbox: http and loopback too",
      examples: ['https://tpp.example/notifications'],
    }),
  ),
  'TPP-Notification-Content-Preferred': Type.Optional(
    Type.String({
      description:
        'Which notifications: `status=` and any of SCA (authorization started, finalised, failed), PROCESS (every status change), LAST (the final status). Default status=PROCESS',
      examples: ['status=SCA,LAST'],
    }),
  ),
};

/** The answer's field: the constants the subscription was accepted for. */
export const acceptedContentField = {
  tppNotificationContentPreferred: Type.Optional(
    Type.Array(Type.String(), {
      description: 'Only with TPP-Notification-URI: what will be notified (SCA, PROCESS, LAST)',
    }),
  ),
};

/** The request's subscription, checked (400 FORMAT_ERROR before anything is stored), or none. */
export function subscriptionFrom(
  context: ServiceContext,
  request: FastifyRequest,
): NotificationSubscription | undefined {
  return subscriptionOf(context.policy.notificationTargets, tppOf(request).app, {
    uri: header(request, 'tpp-notification-uri'),
    contentPreferred: header(request, 'tpp-notification-content-preferred'),
  });
}

/** ASPSP-Notification-Support and ASPSP-Notification-Content, on an answer to a subscribing request. */
export function announceSubscription(
  reply: object,
  subscription: NotificationSubscription | undefined,
): void {
  if (subscription === undefined) return;
  (reply as FastifyReply).header('ASPSP-Notification-Support', 'true');
  (reply as FastifyReply).header('ASPSP-Notification-Content', contentHeader(subscription.content));
}

/** The answer of a subscribing call: `answer()`'s, with the two headers a subscription adds. */
export function subscribingAnswer<T extends TSchema>(schema: T, description: string): T {
  const plain = answer(schema, description) as T & { headers: Record<string, unknown> };
  return {
    ...plain,
    headers: {
      ...plain.headers,
      'ASPSP-Notification-Support': {
        type: 'string',
        description: 'true when TPP-Notification-URI was accepted (docs/notifications.md)',
      },
      'ASPSP-Notification-Content': {
        type: 'string',
        description: 'With a subscription: what will be notified, e.g. status=PROCESS',
      },
    },
  };
}
