// What the gateway POSTs to a TPP's TPP-Notification-URI (issue 41), as the OpenAPI document's `webhooks`
// describes it (webhooks.ts). The delivery (services/) builds a NotificationPayload; the checks at the end
// hold this schema and that type to each other, both ways.
import { type Static, Type } from '@sinclair/typebox';
import type { NotificationContent as Content } from '../../domain/notifications.ts';
import type { NotificationPayload } from '../../services/notifications/notification-body.ts';

const NOTIFICATION_CONTENTS: readonly Content[] = ['SCA', 'PROCESS', 'LAST'];

const NotificationContent = Type.Union(
  NOTIFICATION_CONTENTS.map((content) => Type.Literal(content)),
  {
    description:
      'Which preference of TPP-Notification-Content-Preferred this notification answers: SCA (an authorisation started, finalised or failed), PROCESS (a transactionStatus or consentStatus changed), LAST (the final status)',
  },
);

export const NotificationBody = Type.Object(
  {
    notificationId: Type.String({
      description:
        'Unique per notification, the same on every delivery of it (deliveries are at least once): a TPP drops one it has seen',
    }),
    resourceType: Type.Union([Type.Literal('payment'), Type.Literal('basket'), Type.Literal('consent')], {
      description: 'What changed',
    }),
    resourceId: Type.String({ description: 'Its paymentId, basketId or consentId' }),
    status: Type.String({
      description:
        'The new status: a transactionStatus (ACTC, ACCP, ACSC, RJCT, …), consentStatus or scaStatus',
    }),
    previousStatus: Type.Optional(
      Type.String({
        description:
          "The status before the change; absent in an SCA notification (the authorization's progress)",
      }),
    ),
    reasonCode: Type.Optional(
      Type.String({ description: 'Why, where there is a reason (an ISO 20022 reason code of a RJCT)' }),
    ),
    createdAt: Type.String({ format: 'date-time', description: 'When the change happened, ISO 8601' }),
    content: NotificationContent,
    _links: Type.Object({
      status: Type.Object({
        href: Type.String({ description: "The resource's status, to read with the TPP's token" }),
      }),
    }),
  },
  {
    additionalProperties: false,
    description:
      'A status notification. Signed (RFC 9421): verify it with verifyNotification of @psd2-gateway/client against GET /.well-known/jwks.json before trusting it',
  },
);

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
/** Fails to compile when the schema and the services' NotificationPayload differ. */
const sameShape: Same<Static<typeof NotificationBody>, NotificationPayload> = true;
void sameShape;
