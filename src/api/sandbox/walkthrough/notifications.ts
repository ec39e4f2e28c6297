// The walkthrough's status notifications (issue 41, docs/notifications.md): a payment initiated with
// TPP-Notification-URI, authorized and executed, then the app's notifications with their delivery
// attempts, and the key set that verifies their signatures. The URI refuses every connection, so that
// the listing shows the gateway's attempts and its retry without a receiver of the reader's own.
import { authorize, CURL, continued, exchangeCode, execute, initiate, tppHeaders } from './commands.ts';
import { type Examples, toOtherBank, type WalkthroughSection } from './examples.ts';

export function notificationsSection(examples: Examples): WalkthroughSection {
  return {
    id: 'notifications',
    title: 'Status notifications',
    text: 'The gateway POSTs each status change the TPP asked for to its TPP-Notification-URI, signed (RFC 9421) by the key at /.well-known/jwks.json, and retries for 24 hours. Uses TOKEN from the payment’s step 1.',
    steps: [
      {
        id: 'notify-uri',
        title: '1. Where the notifications go',
        text: 'Your endpoint (live: https, on a host registered with the app). This one refuses every connection, so the listing shows attempts and a retry.',
        command: 'NOTIFY_URI=http://127.0.0.1:9/notifications',
      },
      {
        id: 'notify-initiate',
        title: '2. Initiate with TPP-Notification-URI',
        text: 'status=SCA,PROCESS: the authorization’s progress and every transactionStatus change. The answer says what was accepted (tppNotificationContentPreferred).',
        command: initiate(
          'notify-initiate',
          'other-bank-domestic-credit-transfer',
          '/psd2/se/v2/payments/private/single',
          toOtherBank(examples, '40.00', 'Faktura 14'),
          false,
          [
            `-H "TPP-Notification-URI: $NOTIFY_URI"`,
            `-H 'TPP-Notification-Content-Preferred: status=SCA,PROCESS'`,
          ],
        ),
      },
      {
        id: 'notify-execute',
        title: '3. Authorize and execute',
        text: 'As in the redirect flow: each step is a notification.',
        command: [
          authorize('PIS:$PAYMENT_ID'),
          exchangeCode('PSU_TOKEN', 'PIS:$PAYMENT_ID', false),
          execute('notify-execute'),
        ].join('\n'),
      },
      {
        id: 'notify-list',
        title: '4. The notifications and their attempts',
        text: 'GET /psd2/v1/notifications, newest first: each with its state (pending, delivered, abandoned) and every attempt with its answer or error. Run it again a little later to see more attempts.',
        command: [
          'sleep 2',
          continued(
            `${CURL} "$BASE/psd2/v1/notifications?limit=4"`,
            ...tppHeaders('TOKEN', 'notify-list'),
            `| jq '[.notifications[] | {content, status, state, attempts: [.attempts[] | .error // .statusCode]}]'`,
          ),
        ].join('\n'),
      },
      {
        id: 'notify-keys',
        title: '5. The keys that sign them',
        text: 'GET /.well-known/jwks.json, at the origin (outside any base path): verify a delivery with verifyNotification of @psd2-gateway/client.',
        // At the origin (RFC 8615), outside a BASE_PATH.
        command: [
          `ORIGIN=$(echo "$BASE" | sed -E 's#^(https?://[^/]+).*#\\1#')`,
          `${CURL} "$ORIGIN/.well-known/jwks.json" | jq .`,
        ].join('\n'),
      },
    ],
  };
}
