// The demo's notified flow (issue 41): a payment initiated with TPP-Notification-URI, authorized and
// executed as in the redirect flow, while a receiver started here (on 127.0.0.1, so the sandbox must run
// on this machine) takes the gateway's status notifications and verifies each one's signature against
// the key set the gateway publishes, as a TPP's endpoint would.
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type NotificationKeySet, TppError, verifyNotification } from '@psd2-gateway/client';
import { clientToken, type DemoContext, DOMESTIC, domesticPayment, redirectAuthorization } from './steps.ts';

/** What the receiver took: the request as it came, for the signature's check. */
interface Delivery {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: Buffer;
  readonly notification: Record<string, unknown>;
}

/** How long the demo waits for the notifications it expects. */
const WAIT_MS = 15_000;

interface Receiver {
  readonly url: string;
  readonly deliveries: Delivery[];
  close(): Promise<void>;
}

async function startReceiver(): Promise<Receiver> {
  const deliveries: Delivery[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks);
      let notification: Record<string, unknown> = {};
      try {
        notification = JSON.parse(body.toString('utf8')) as Record<string, unknown>;
      } catch {
        // Shown as it is: the signature check says what is wrong with it.
      }
      const { port } = server.address() as AddressInfo;
      deliveries.push({
        method: request.method ?? '',
        url: `http://127.0.0.1:${port}${request.url ?? '/'}`,
        headers: request.headers,
        body,
        notification,
      });
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/notifications`,
    deliveries,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** A notification in a few words: `SCA started`, `ACTC -> ACCC`. */
function described(notification: Record<string, unknown>): string {
  return notification.content === 'SCA'
    ? `SCA ${String(notification.status)}`
    : `${String(notification.previousStatus)} -> ${String(notification.status)}`;
}

/** Waits (bounded) until the payment's notifications include its SCA's end and its final status. */
async function awaitNotifications(receiver: Receiver, paymentId: string, final: string): Promise<Delivery[]> {
  const ours = () => receiver.deliveries.filter((delivery) => delivery.notification.resourceId === paymentId);
  const until = Date.now() + WAIT_MS;
  while (Date.now() < until) {
    const seen = ours().map((delivery) => delivery.notification);
    const finalised = seen.some((n) => n.content === 'SCA' && n.status === 'finalised');
    if (finalised && seen.some((n) => n.content === 'PROCESS' && n.status === final)) return ours();
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(
    `the notifications did not arrive within ${WAIT_MS / 1000} s (${
      ours()
        .map((d) => described(d.notification))
        .join(', ') || 'none'
    }): the sandbox must reach ${receiver.url}`,
  );
}

export const NOTIFIED_STEPS = 8;

/** token, key set, initiate with a subscription, authorize, exchange, execute, the notifications, the list. */
export async function notifiedFlow(context: DemoContext): Promise<void> {
  const { client, walk } = context;
  const receiver = await startReceiver();
  try {
    const token = await clientToken(context, 'PIS');
    const keys = await walk.call(
      () => client.notificationKeys(),
      200,
      (body) => `${body.keys.length} signing key${body.keys.length === 1 ? '' : 's'}, ${body.keys[0]?.alg}`,
    );
    const initiated = await walk.call(
      () =>
        client.initiate(token, {
          path: `/psd2/se/v2/payments/private/single/${DOMESTIC}`,
          body: domesticPayment(context.accounts, '125.50'),
          headers: {
            'TPP-Notification-URI': receiver.url,
            'TPP-Notification-Content-Preferred': 'status=SCA,PROCESS',
          },
        }),
      200,
      (body, answer) =>
        `paymentId ${body.paymentId}, notified of ${(body.tppNotificationContentPreferred ?? []).join(' ')} ` +
        `(ASPSP-Notification-Content ${answer.headers.get('aspsp-notification-content')})`,
    );
    const paymentId = initiated.body.paymentId;
    const psuToken = await redirectAuthorization(context, `PIS:${paymentId}`);
    const executed = await walk.call(
      () => client.execute(DOMESTIC, paymentId, psuToken),
      200,
      (body) => `transactionStatus ${body.transactionStatus}`,
    );
    await walk.action(
      `the notifications at ${receiver.url}`,
      async () => {
        const deliveries = await awaitNotifications(receiver, paymentId, executed.body.transactionStatus);
        for (const delivery of deliveries) {
          const verified = await verify(delivery, keys.body);
          walk.note(`${described(delivery.notification)}: signature verified (keyid ${verified})`);
        }
        return deliveries.length;
      },
      (count) => `${count} notifications, each signed by the published key`,
    );
    await settled(client, token, paymentId);
    await walk.call(
      () => client.notifications(token, 3),
      200,
      (body) =>
        `${body.notifications.length} listed: ` +
        body.notifications.map((n) => `${n.status} ${n.state} at attempt ${n.attempts.length}`).join(', '),
    );
  } finally {
    await receiver.close();
  }
}

/** Waits (bounded) until the gateway has recorded the payment's deliveries as delivered. */
async function settled(client: DemoContext['client'], token: string, paymentId: string): Promise<void> {
  const until = Date.now() + WAIT_MS;
  while (Date.now() < until) {
    const listed = await client.notifications(token, 10);
    const ours = listed.body.notifications?.filter((n) => n.resourceId === paymentId) ?? [];
    if (ours.length > 0 && ours.every((n) => n.state === 'delivered')) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function verify(delivery: Delivery, keys: NotificationKeySet): Promise<string> {
  try {
    return (await verifyNotification(delivery, keys)).keyId;
  } catch (error) {
    throw new TppError(`notification ${described(delivery.notification)}`, 0, { error: String(error) });
  }
}
