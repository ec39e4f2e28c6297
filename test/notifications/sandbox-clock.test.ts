// The sandbox clock and notifications together (issue 41 point 5): when a TPP moves its app's clock,
// what becomes due happens at once with its notifications: a settlement lands (ACCP, then ACSC), a
// future-dated payment runs, a consent expires. On PGlite, and on PostgreSQL when TEST_DATABASE_URL is set.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { SETTLEMENT_CREDITORS } from '../../src/sandbox/scenarios.ts';
import { backends, type Gateway, startGateway } from '../helpers/gateway.ts';
import { domestic, otherBank } from '../helpers/payments.ts';
import { advanceClock } from '../helpers/sandbox-clock.ts';
import { eventually, type Receiver, startReceiver } from './receiver.ts';

const SETTLING = 'other-bank-domestic-credit-transfer';
const DOMESTIC = 'handelsbanken-domestic-credit-transfer';
const path = (product: string) => `/psd2/se/v2/payments/private/single/${product}`;
// The next Wednesday morning in Stockholm, ticking: Thursday is the next bank day, Friday the one after.
// Ahead of real time, as an app's clock always is: the outbox dates its notifications by the database's.
const started = Date.now();
const DAY = 86_400_000;
const WEDNESDAY = (() => {
  const at = new Date(started + DAY);
  at.setUTCHours(9, 0, 0, 0);
  while (at.getUTCDay() !== 3) at.setTime(at.getTime() + DAY);
  return at.getTime();
})();
const day = (days: number) => new Date(WEDNESDAY + days * DAY).toISOString().slice(0, 10);

for (const backend of backends()) {
  describe(`the sandbox clock notifies what it makes happen (${backend})`, () => {
    let gateway: Gateway;
    let receiver: Receiver;
    let token: string;
    before(async () => {
      gateway = await startGateway({
        backend,
        clock: () => new Date(WEDNESDAY + (Date.now() - started)),
        config: { notificationPollMs: 20 },
      });
      receiver = await startReceiver();
      token = await gateway.client.clientCredentialsToken();
    });
    after(async () => {
      await gateway.close();
      await receiver.close();
    });

    const of = (id: string) => receiver.received.filter((request) => request.body.resourceId === id);
    const moves = (id: string) => of(id).map(({ body }) => `${body.previousStatus}->${body.status}`);

    async function executed(
      product: string,
      body: ReturnType<typeof domestic> | ReturnType<typeof otherBank>,
    ) {
      const initiated = await gateway.client.initiate(token, {
        path: path(product),
        body,
        headers: { 'TPP-Notification-URI': receiver.url },
      });
      assert.equal(initiated.status, 200, JSON.stringify(initiated.body));
      const paymentId = initiated.body.paymentId;
      const answer = await gateway.client.authorizeAndExecute(product, paymentId);
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
      return { paymentId, status: answer.body.transactionStatus };
    }

    test('an advance lands the settlement, runs the future-dated payment and expires the consent, each notified', async () => {
      const settling = await executed(
        SETTLING,
        otherBank({ creditorAccount: { value: SETTLEMENT_CREDITORS.settles, accountType: 'BBAN' } }),
      );
      assert.equal(settling.status, 'ACCP');
      const dated = await executed(DOMESTIC, domestic({ requestedExecutionDate: day(2) }));
      assert.equal(dated.status, 'ACCP');
      const ais = await gateway.client.clientCredentialsToken('AIS');
      const consent = await gateway.client.createConsent(ais, {
        body: { access: 'ALL_ACCOUNTS', validUntil: day(1) },
        headers: { 'TPP-Notification-URI': receiver.url },
      });
      assert.equal(consent.status, 201, JSON.stringify(consent.body));
      const consentId = consent.body.consentId;
      await gateway.client.authorizeScope(`AIS:${consentId}`);
      await eventually(
        'the moves so far',
        () =>
          moves(settling.paymentId).includes('ACTC->ACCP') &&
          of(dated.paymentId).length === 1 &&
          of(consentId).length === 1,
      );
      const before = { settling: moves(settling.paymentId), dated: moves(dated.paymentId) };
      assert.equal(before.settling.at(-1), 'ACTC->ACCP');
      assert.deepEqual(before.dated, ['ACTC->ACCP']);

      // Thursday: the settlement lands; the consent is valid through Thursday.
      assert.equal((await advanceClock(gateway.client, token, { advance: 'P1DT1H' })).status, 200);
      await eventually('settled', () => moves(settling.paymentId).includes('ACCP->ACSC'));
      assert.equal(moves(consentId).includes('valid->expired'), false);
      assert.equal(moves(dated.paymentId).includes('ACCP->ACCC'), false);
      // Friday: the future-dated payment runs and the consent has expired.
      assert.equal((await advanceClock(gateway.client, token, { advance: 'P1D' })).status, 200);
      await eventually(
        'the dated payment ran and the consent expired',
        () => moves(dated.paymentId).includes('ACCP->ACCC') && moves(consentId).includes('valid->expired'),
      );

      assert.deepEqual(moves(settling.paymentId), [...before.settling, 'ACCP->ACSC']);
      assert.deepEqual(moves(dated.paymentId), ['ACTC->ACCP', 'ACCP->ACCC']);
      assert.deepEqual(moves(consentId), ['received->valid', 'valid->expired']);
      // Each change once, each with an id of its own.
      const ids = receiver.received.map(({ body }) => body.notificationId);
      assert.equal(new Set(ids).size, ids.length);
    });
  });
}
