// Delivery across processes (issue 41): two gateways on one database (two pools on PostgreSQL, as two
// instances; one store on PGlite) never send a notification twice, and keep an app under its bound of
// notifications in flight, across both. Notifications are put in the outbox as the transition rule
// does (notify_tpp), many at once.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { backends, type GatewayPair, queryRows, startGatewayPair } from '../helpers/gateway.ts';
import { eventually, type Receiver, startReceiver } from './receiver.ts';

const COUNT = 12;
const PER_APP = 2;

for (const backend of backends()) {
  describe(`delivery by two gateways on one database (${backend})`, () => {
    let pair: GatewayPair;
    let receiver: Receiver;
    before(async () => {
      receiver = await startReceiver();
      pair = await startGatewayPair(backend, {
        config: { notificationPollMs: 10, notificationTimeoutMs: 2_000, notificationInFlightPerApp: PER_APP },
      });
    });
    after(async () => {
      await pair.close();
      await receiver.close();
    });

    test('each notification is sent once, never more than the bound of one app at a time', async () => {
      receiver.behave({ status: 204, delayMs: 60 });
      const app = pair.first.sandboxApp.clientId;
      for (let index = 0; index < COUNT; index += 1) {
        await pair.store.db.execute(sql`SELECT notify_tpp(${app}, 'payment', ${`p-${index}`}, ${receiver.url},
          'ACCC', 'ACTC', NULL, 'PROCESS', '/psd2/v1/payments/x/p/status')`);
      }
      await eventually('all delivered', () => receiver.received.length >= COUNT, 10_000);
      // A second sending of any of them would come within a poll or two.
      await new Promise((resolve) => setTimeout(resolve, 200));
      const ids = receiver.received.map((request) => String(request.body.notificationId));
      assert.equal(ids.length, COUNT, 'each sent once');
      assert.equal(new Set(ids).size, COUNT, 'no id twice');
      assert.ok(receiver.mostOpen() <= PER_APP, `at most ${PER_APP} in flight, saw ${receiver.mostOpen()}`);
      assert.ok(receiver.mostOpen() === PER_APP, `the bound is used, saw ${receiver.mostOpen()}`);
      const rows = await queryRows<{ state: string; attempts: number; n: number }>(
        pair.store,
        sql`SELECT state, attempts, count(*)::int AS n FROM notifications GROUP BY state, attempts`,
      );
      assert.deepEqual(rows, [{ state: 'delivered', attempts: 1, n: COUNT }]);
    });
  });
}
