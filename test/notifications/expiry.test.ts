// A consent whose validity passes in real time (issue 41): the scheduler writes it `expired`, so the TPP
// that subscribed is told and the consent's status answers `expired`; nothing else expires with it. On
// PGlite, and on PostgreSQL when TEST_DATABASE_URL is set.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { addDays, dateIn } from '../../src/domain/dates.ts';
import { backends, type Gateway, startGateway } from '../helpers/gateway.ts';
import { eventually, type Receiver, startReceiver } from './receiver.ts';

for (const backend of backends()) {
  describe(`consents that expire are notified (${backend})`, () => {
    let gateway: Gateway;
    let receiver: Receiver;
    let offset = 0;
    const clock = () => new Date(Date.now() + offset);
    before(async () => {
      gateway = await startGateway({
        backend,
        clock,
        config: { notificationPollMs: 20, schedulerIntervalMs: 25 },
      });
      receiver = await startReceiver();
    });
    after(async () => {
      await gateway.close();
      await receiver.close();
    });

    test('the scheduler writes a consent expired once its validity passed, and the TPP is told', async () => {
      const ais = await gateway.client.clientCredentialsToken('AIS');
      const today = dateIn(clock(), 'Europe/Stockholm');
      const consent = async (validUntil: string) => {
        const created = await gateway.client.createConsent(ais, {
          body: { access: 'ALL_ACCOUNTS', validUntil },
          headers: { 'TPP-Notification-URI': receiver.url },
        });
        assert.equal(created.status, 201, JSON.stringify(created.body));
        await gateway.client.authorizeScope(`AIS:${created.body.consentId}`);
        return created.body.consentId;
      };
      const short = await consent(addDays(today, 1));
      const long = await consent(addDays(today, 30));
      const of = (id: string) => receiver.received.filter((request) => request.body.resourceId === id);
      await eventually('both approved', () => of(short).length === 1 && of(long).length === 1);

      offset = 3 * 86_400_000;
      await eventually('the short one expired', () => of(short).length === 2);
      const expired = of(short)[1]!.body;
      assert.deepEqual(
        [expired.resourceType, expired.status, expired.previousStatus, expired.content],
        ['consent', 'expired', 'valid', 'PROCESS'],
      );
      // A token of the app's new day (the first one expired with the days that passed).
      const later = await gateway.client.clientCredentialsToken('AIS');
      const status = await gateway.client.consents.status(short, later);
      assert.equal(status.status, 200);
      assert.deepEqual(status.body, { consentStatus: 'expired' });
      const still = await gateway.client.consents.status(long, later);
      assert.deepEqual(still.body, { consentStatus: 'valid' });
      // Later turns find nothing more to expire: one notification, not one a turn.
      await new Promise((resolve) => setTimeout(resolve, 200));
      assert.equal(of(short).length, 2);
      assert.equal(of(long).length, 1);
    });
  });
}
