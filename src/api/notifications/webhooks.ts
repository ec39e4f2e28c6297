// The OpenAPI 3.1 `webhooks` entry: what the gateway sends to a TPP's TPP-Notification-URI, its body
// (schemas.ts) and its signature headers (services/notifications/signing.ts), for the document that
// api/shared/openapi.ts generates.
import {
  COVERED_COMPONENTS,
  SIGNATURE_ALGORITHM,
  SIGNATURE_LABEL,
} from '../../services/notifications/signing.ts';
import { JWKS_PATH } from './jwks-routes.ts';
import { NotificationBody } from './schemas.ts';

const header = (name: string, description: string, example: string) => ({
  name,
  in: 'header',
  required: true,
  description,
  schema: { type: 'string' },
  example,
});

const EXAMPLE_DIGEST = 'sha-256=:X48E9qOokqqrvdts8nOJRJN3OWDUoyWxBf7kbu9DBPE=:';
const COVERED = COVERED_COMPONENTS.map((component) => `"${component}"`).join(' ');

export const NOTIFICATION_WEBHOOKS = {
  statusNotification: {
    post: {
      summary: "A status notification, POSTed to the TPP's TPP-Notification-URI",
      operationId: 'statusNotification',
      tags: ['Notifications'],
      description: `Sent when a payment, signing basket or consent the TPP initiated with TPP-Notification-URI changes as its TPP-Notification-Content-Preferred asked (SCA, PROCESS, LAST). At least once: a delivery that times out, is refused or answers 5xx is sent again, with the same notificationId, with exponential back-off for 24 hours.

Signed with an HTTP Message Signature (RFC 9421), label ${SIGNATURE_LABEL}, covering ${COVERED} and the parameters created, keyid and alg="${SIGNATURE_ALGORITHM}" (ES256); Content-Digest (RFC 9530) is the SHA-256 of the exact body bytes. Before trusting one: check the digest against the body, the signature with the key of ${JWKS_PATH} whose kid is the keyid, that the covered components are these, and that created is recent (verifyNotification of @psd2-gateway/client does all of it).`,
      parameters: [
        header('Content-Digest', 'RFC 9530: SHA-256 of the exact body bytes', EXAMPLE_DIGEST),
        header(
          'Signature-Input',
          'RFC 9421: what the signature covers, when it was made and with which key',
          `${SIGNATURE_LABEL}=(${COVERED});created=1767225600;keyid="<kid of ${JWKS_PATH}>";alg="${SIGNATURE_ALGORITHM}"`,
        ),
        header(
          'Signature',
          'RFC 9421: the ECDSA P-256 signature, r||s, base64',
          `${SIGNATURE_LABEL}=:<base64>:`,
        ),
      ],
      requestBody: {
        required: true,
        content: {
          'application/json': {
            schema: NotificationBody,
            example: {
              notificationId: '0b6f1f0e-5c3e-4f4c-9a57-3c2f3d1b9e21',
              resourceType: 'payment',
              resourceId: 'b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6',
              status: 'ACSC',
              previousStatus: 'ACCP',
              createdAt: '2026-01-01T00:00:00.000Z',
              content: 'PROCESS',
              _links: {
                status: {
                  href: '/psd2/v1/payments/sepa-credit-transfer/b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6/status',
                },
              },
            },
          },
        },
      },
      responses: {
        '2XX': { description: 'Received: the notification is not sent again' },
        '5XX': { description: 'Not received: sent again later, with the same notificationId' },
      },
    },
  },
};
