// What the gateway POSTs to a TPP's TPP-Notification-URI (issue 41), the one definition: the delivery
// builds its body against it, and the OpenAPI document's `webhooks` describes it (notification-webhooks.ts).
import { type Static, Type } from '@sinclair/typebox';

const NOTIFICATION_CONTENTS = ['SCA', 'PROCESS', 'LAST'] as const;

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
    resourceType: Type.Union(
      [Type.Literal('payment'), Type.Literal('signingBasket'), Type.Literal('consent')],
      {
        description: 'What changed',
      },
    ),
    resourceId: Type.String({ description: 'Its paymentId, basketId or consentId' }),
    status: Type.String({
      description:
        'The new status: a transactionStatus (ACTC, ACCP, ACSC, RJCT, …), consentStatus or scaStatus',
    }),
    previousStatus: Type.Union([Type.String(), Type.Null()], {
      description: 'The status before the change; null for the first one notified',
    }),
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

export type NotificationBody = Static<typeof NotificationBody>;
