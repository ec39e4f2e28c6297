// What a status notification POSTs, in the services' words: the delivery builds it, and the TypeBox
// schema of the OpenAPI webhook (api/notifications/schemas.ts, NotificationBody) is held equal to it by
// the type checker, so that the two cannot drift while services/ imports nothing from api/.

import type { NotificationContent } from '../../domain/notifications.ts';

export type NotifiedResource = 'payment' | 'basket' | 'consent';

export interface NotificationPayload {
  /** Unique per notification, the same on every delivery of it. */
  notificationId: string;
  resourceType: NotifiedResource;
  /** Its paymentId, basketId or consentId. */
  resourceId: string;
  /** The new transactionStatus, consentStatus or scaStatus. */
  status: string;
  /** The status before; absent in an SCA notification (the authorization's progress). */
  previousStatus?: string;
  /** An ISO 20022 reason code, where there is one (a RJCT's). */
  reasonCode?: string;
  /** When the change happened, ISO 8601. */
  createdAt: string;
  content: NotificationContent;
  _links: { status: { href: string } };
}
