// Where a notification may go (issue 41): the refused ranges, the live and sandbox subscription rules,
// and the check at delivery, on every address a name resolves to (localhost: loopback, refused live).
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import type { ApiError } from '../../src/domain/errors.ts';
import { isRefusedAddress } from '../../src/services/notifications/addresses.ts';
import { startDelivery } from '../../src/services/notifications/delivery.ts';
import { openNotificationSigner } from '../../src/services/notifications/signing.ts';
import { subscriptionOf } from '../../src/services/notifications/subscription.ts';
import { policyFor } from '../../src/services/shared/policy.ts';
import { openTestStore, queryRows, type TestStore } from '../helpers/gateway.ts';
import { eventually, type Receiver, startReceiver } from './receiver.ts';

test('the refused ranges', () => {
  for (const address of [
    '10.1.2.3',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.0.1',
    '127.0.0.1',
    '127.8.8.8',
    '169.254.169.254',
    '0.0.0.0',
    '100.64.0.1',
    '224.0.0.1',
    '255.255.255.255',
    '::1',
    '::',
    'fe80::1',
    'fc00::1',
    'fd12::1',
    'ff02::1',
    '::ffff:10.0.0.1',
    '::ffff:127.0.0.1',
    'not an address',
  ]) {
    assert.equal(isRefusedAddress(address), true, address);
  }
  for (const address of ['93.184.216.34', '8.8.8.8', '172.32.0.1', '2606:4700::1111', '::ffff:8.8.8.8']) {
    assert.equal(isRefusedAddress(address), false, address);
  }
});

describe('subscribing', () => {
  const live = policyFor('live').notificationTargets;
  const sandbox = policyFor('sandbox').notificationTargets;
  const app = {
    clientId: 'a',
    name: 'A',
    description: '',
    redirectUri: '',
    seeded: false,
    notificationHosts: ['notify.a.example'],
  };
  const refusal = (targets: typeof live, uri: string) => {
    try {
      subscriptionOf(targets, app, { uri, contentPreferred: undefined });
      return 'accepted';
    } catch (error) {
      return (error as ApiError).messages[0]!.text;
    }
  };

  test('live: https on a registered host only, never a private address', () => {
    assert.equal(refusal(live, 'https://notify.a.example/n'), 'accepted');
    assert.equal(refusal(live, 'https://NOTIFY.A.EXAMPLE:8443/n'), 'accepted');
    assert.equal(
      refusal(live, 'http://notify.a.example/n'),
      'TPP-Notification-URI must be one absolute https: URI',
    );
    assert.equal(
      refusal(live, 'https://b.example/n'),
      "TPP-Notification-URI must be on one of the app's registered notification hosts (onboarding: app.notificationHosts)",
    );
    assert.equal(
      refusal(live, 'https://127.0.0.1/n'),
      'TPP-Notification-URI must not name a private, loopback, link-local or multicast address',
    );
  });

  test('sandbox: http, any host, loopback; never another private range', () => {
    assert.equal(refusal(sandbox, 'http://127.0.0.1:9999/n'), 'accepted');
    assert.equal(refusal(sandbox, 'http://[::1]:9999/n'), 'accepted');
    assert.equal(refusal(sandbox, 'http://anyone.example/n'), 'accepted');
    assert.equal(
      refusal(sandbox, 'http://192.168.1.1/n'),
      'TPP-Notification-URI must not name a private, loopback, link-local or multicast address',
    );
    assert.deepEqual(
      subscriptionOf(sandbox, app, {
        uri: 'http://x.example/n',
        contentPreferred: 'status=LAST,SCA,PROCESS',
      }),
      {
        uri: 'http://x.example/n',
        content: ['SCA', 'PROCESS', 'LAST'],
      },
    );
    assert.equal(subscriptionOf(sandbox, app, { uri: undefined, contentPreferred: undefined }), undefined);
  });
});

describe('the check at each delivery', () => {
  let store: TestStore;
  let receiver: Receiver;
  before(async () => {
    store = await openTestStore('pglite');
    receiver = await startReceiver();
  });
  after(async () => {
    await store.close();
    await receiver.close();
  });

  async function deliverOne(uri: string, loopback: boolean) {
    const resourceId = `r-${Math.random()}`;
    await store.db.execute(sql`SELECT notify_tpp('app', 'payment', ${resourceId}, ${uri}, 'ACCC', 'ACTC', NULL,
      'PROCESS', '/x')`);
    const counted: string[] = [];
    // The sandbox's signer (its key generated and kept in the database), as the gateway signs.
    const signer = await openNotificationSigner(
      { notificationSigningKey: undefined, notificationSigningKeysRetired: [] },
      store.db,
    );
    const stop = startDelivery(store.db, {
      clock: () => new Date(),
      pollMs: 10,
      timeoutMs: 1_000,
      inFlightPerApp: 4,
      loopback,
      sign: (request) => signer.sign(request),
      count: (result) => counted.push(result),
      onError: (error) => assert.fail(String(error)),
    });
    try {
      let row: { state: string; error: string | null } | undefined;
      await eventually('an attempt', async () => {
        [row] = await queryRows<{ state: string; error: string | null }>(
          store,
          sql`SELECT n.state, a.error FROM notifications n JOIN notification_attempts a USING (notification_id)
               WHERE n.resource_id = ${resourceId}`,
        );
        return row !== undefined;
      });
      return { ...row!, counted };
    } finally {
      await stop();
    }
  }

  test('live: a name resolving to a loopback address is refused at delivery, and nothing is sent', async () => {
    const port = new URL(receiver.url).port;
    const sent = receiver.received.length;
    assert.deepEqual(await deliverOne(`http://localhost:${port}/notify`, false), {
      state: 'abandoned',
      error: 'refused address',
      counted: ['abandoned'],
    });
    assert.deepEqual(await deliverOne(`http://127.0.0.1:${port}/notify`, false), {
      state: 'abandoned',
      error: 'refused address',
      counted: ['abandoned'],
    });
    assert.equal(receiver.received.length, sent, 'nothing reached the receiver');
  });

  test('sandbox: the same name is delivered to the address it was checked at', async () => {
    const port = new URL(receiver.url).port;
    assert.deepEqual(await deliverOne(`http://localhost:${port}/notify`, true), {
      state: 'delivered',
      error: null,
      counted: ['delivered'],
    });
    assert.equal(receiver.received.at(-1)!.headers.host, `localhost:${port}`);
  });
});
