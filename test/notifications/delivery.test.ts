// Status notifications end to end over HTTP (issue 41): a TPP subscribes at initiation, the sandbox
// flow moves the payment, and a receiver the test starts gets each change once, with one
// notificationId each; failures are retried with the same id, abandoned after the window, and every
// attempt is listed. On PGlite, and on PostgreSQL when TEST_DATABASE_URL is set.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { type NotificationKeySet, verifyNotification } from '@psd2-gateway/client';
import { FormatRegistry } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { NotificationBody } from '../../src/api/notifications/schemas.ts';
import { addDays, dateIn } from '../../src/domain/dates.ts';
import { backends, type Gateway, startGateway } from '../helpers/gateway.ts';
import { BAD_REQUEST, call, statusAndBody } from '../helpers/http.ts';
import { domestic } from '../helpers/payments.ts';
import { refusedPort } from '../helpers/ports.ts';
import { eventually, type Receiver, startReceiver } from './receiver.ts';

const DOMESTIC = 'handelsbanken-domestic-credit-transfer';
const PATH = `/psd2/se/v2/payments/private/single/${DOMESTIC}`;
const TIMEOUT_MS = 400;
// TypeBox checks a format only once it knows it: date-time as RFC 3339 (the OpenAPI document's meaning).
if (!FormatRegistry.Has('date-time'))
  FormatRegistry.Set('date-time', (value) =>
    /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/.test(value),
  );

/** Real time moved forward by the test: back-off waits and the 24-hour window pass without waiting. */
function shiftedClock() {
  let offset = 0;
  return { clock: () => new Date(Date.now() + offset), advance: (ms: number) => (offset += ms) };
}

for (const backend of backends()) {
  describe(`notifications (${backend})`, () => {
    let gateway: Gateway;
    let receiver: Receiver;
    let token: string;
    const time = shiftedClock();
    before(async () => {
      gateway = await startGateway({
        backend,
        clock: time.clock,
        config: { notificationPollMs: 20, notificationTimeoutMs: TIMEOUT_MS, notificationInFlightPerApp: 2 },
      });
      receiver = await startReceiver();
      token = await gateway.client.clientCredentialsToken();
    });
    after(async () => {
      await gateway.close();
      await receiver.close();
    });

    const headersFor = (extra: Record<string, string> = {}) => ({
      'x-gateway-client-id': gateway.sandboxApp.clientId,
      'tpp-request-id': randomUUID(),
      'tpp-transaction-id': 't',
      ...extra,
    });

    async function initiate(subscription: Record<string, string>, body = domestic()) {
      const answer = await gateway.client.initiate(token, { path: PATH, body, headers: subscription });
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
      return { id: answer.body.paymentId, answer };
    }

    async function authorizeAndExecute(paymentId: string) {
      const psu = (await gateway.client.authorizeScope(`PIS:${paymentId}`)).access_token;
      const executed = await gateway.client.execute(DOMESTIC, paymentId, psu);
      assert.equal(executed.status, 200, JSON.stringify(executed.body));
      return { psu, status: executed.body.transactionStatus };
    }

    function cancel(paymentId: string, psu: string) {
      return call(gateway.app, 'DELETE', `/psd2/v1/payments/${DOMESTIC}/${paymentId}`, {
        headers: headersFor({ authorization: `Bearer ${psu}` }),
      });
    }

    async function listed(limit?: number) {
      const answer = await call(
        gateway.app,
        'GET',
        `/psd2/v1/notifications${limit === undefined ? '' : `?limit=${limit}`}`,
        {
          headers: headersFor({ authorization: `Bearer ${token}` }),
        },
      );
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
      return (answer.body as { notifications: Record<string, unknown>[] }).notifications;
    }

    const of = (resourceId: string) =>
      receiver.received.filter((request) => request.body.resourceId === resourceId);

    const tomorrow = () => addDays(dateIn(time.clock(), 'Europe/Stockholm'), 1);

    test('subscribing: the answer says what was accepted, PROCESS by default', async () => {
      const { answer } = await initiate({ 'TPP-Notification-URI': receiver.url });
      assert.deepEqual(answer.body.tppNotificationContentPreferred, ['PROCESS']);
      assert.equal(answer.headers.get('aspsp-notification-support'), 'true');
      assert.equal(answer.headers.get('aspsp-notification-content'), 'status=PROCESS');
      const both = await initiate({
        'TPP-Notification-URI': receiver.url,
        'TPP-Notification-Content-Preferred': 'status=LAST, SCA',
      });
      assert.deepEqual(both.answer.body.tppNotificationContentPreferred, ['SCA', 'LAST']);
      assert.equal(both.answer.headers.get('aspsp-notification-content'), 'status=SCA,LAST');
      const none = await initiate({});
      assert.equal(none.answer.body.tppNotificationContentPreferred, undefined);
      assert.equal(none.answer.headers.get('aspsp-notification-support'), null);
    });

    test('a bad preference or URI answers 400 FORMAT_ERROR and stores nothing', async () => {
      const before = (await listed(100)).length;
      const cases: [Record<string, string>, string, string][] = [
        [
          {
            'TPP-Notification-URI': receiver.url,
            'TPP-Notification-Content-Preferred': 'status=PROCESS,PROCESS',
          },
          'TPP-Notification-Content-Preferred',
          'TPP-Notification-Content-Preferred must be status= and one or more of SCA, PROCESS, LAST separated by commas, each once',
        ],
        [
          { 'TPP-Notification-URI': receiver.url, 'TPP-Notification-Content-Preferred': 'ALL' },
          'TPP-Notification-Content-Preferred',
          'TPP-Notification-Content-Preferred must be status= and one or more of SCA, PROCESS, LAST separated by commas, each once',
        ],
        [
          { 'TPP-Notification-Content-Preferred': 'status=LAST' },
          'TPP-Notification-Content-Preferred',
          'TPP-Notification-Content-Preferred needs a TPP-Notification-URI',
        ],
        [
          { 'TPP-Notification-URI': 'ftp://tpp.example/x' },
          'TPP-Notification-URI',
          'TPP-Notification-URI must be one absolute https: or http: URI',
        ],
        [
          { 'TPP-Notification-URI': 'notify' },
          'TPP-Notification-URI',
          'TPP-Notification-URI must be one absolute https: or http: URI',
        ],
        [
          { 'TPP-Notification-URI': 'http://10.1.2.3/notify' },
          'TPP-Notification-URI',
          'TPP-Notification-URI must not name a private, loopback, link-local or multicast address',
        ],
        [
          { 'TPP-Notification-URI': 'http://[fe80::1]/notify' },
          'TPP-Notification-URI',
          'TPP-Notification-URI must not name a private, loopback, link-local or multicast address',
        ],
        [
          { 'TPP-Notification-URI': 'http://user:secret@tpp.example/notify' },
          'TPP-Notification-URI',
          'TPP-Notification-URI must carry no user, password or fragment',
        ],
      ];
      for (const [headers, path, text] of cases) {
        const answer = await call(gateway.app, 'POST', PATH, {
          headers: headersFor({ authorization: `Bearer ${token}`, ...headers }),
          json: domestic(),
        });
        assert.deepEqual(
          statusAndBody(answer),
          BAD_REQUEST({ code: 'FORMAT_ERROR', path, text }),
          JSON.stringify(headers),
        );
      }
      const rows = await gateway.store.db.execute(
        `SELECT count(*)::int AS n FROM payments WHERE notification_uri IS NOT NULL AND notification_uri NOT LIKE 'http://127.0.0.1:%'` as never,
      );
      assert.equal((rows as unknown as { rows: { n: number }[] }).rows[0]!.n, 0);
      assert.equal((await listed(100)).length, before);
    });

    test('PROCESS: each status change arrives once, with its own notificationId and a link to the status', async () => {
      const { id } = await initiate(
        { 'TPP-Notification-URI': receiver.url },
        domestic({ requestedExecutionDate: tomorrow() }),
      );
      const { psu, status } = await authorizeAndExecute(id);
      assert.equal(status, 'ACCP');
      assert.equal((await cancel(id, psu)).status, 200);
      await eventually('two notifications', () => of(id).length === 2);
      const [first, second] = of(id);
      for (const request of [first!, second!]) {
        assert.equal(request.method, 'POST');
        assert.equal(request.path, '/notify');
        assert.equal(request.headers['content-type'], 'application/json');
      }
      assert.notEqual(first!.body.notificationId, second!.body.notificationId);
      assert.match(String(first!.body.createdAt), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      assert.deepEqual(
        { ...first!.body, notificationId: 'id', createdAt: 'at' },
        {
          notificationId: 'id',
          resourceType: 'payment',
          resourceId: id,
          status: 'ACCP',
          previousStatus: 'ACTC',
          createdAt: 'at',
          content: 'PROCESS',
          _links: { status: { href: `/psd2/v1/payments/${DOMESTIC}/${id}/status` } },
        },
      );
      assert.deepEqual(
        { ...second!.body, notificationId: 'id', createdAt: 'at' },
        {
          notificationId: 'id',
          resourceType: 'payment',
          resourceId: id,
          status: 'CANC',
          previousStatus: 'ACCP',
          createdAt: 'at',
          content: 'PROCESS',
          _links: { status: { href: `/psd2/v1/payments/${DOMESTIC}/${id}/status` } },
        },
      );
      // Nothing more comes: the loop does not send a delivered notification again.
      await new Promise((resolve) => setTimeout(resolve, 150));
      assert.equal(of(id).length, 2);
    });

    test('LAST: only the final status', async () => {
      const { id } = await initiate(
        { 'TPP-Notification-URI': receiver.url, 'TPP-Notification-Content-Preferred': 'status=LAST' },
        domestic({ requestedExecutionDate: tomorrow() }),
      );
      const { psu } = await authorizeAndExecute(id);
      assert.equal((await cancel(id, psu)).status, 200);
      await eventually('the final notification', () => of(id).length === 1);
      await new Promise((resolve) => setTimeout(resolve, 150));
      assert.deepEqual(
        of(id).map((request) => [request.body.status, request.body.previousStatus, request.body.content]),
        [['CANC', 'ACCP', 'LAST']],
      );
    });

    test('an immediate booking is one notification, ACTC to ACCC', async () => {
      const { id } = await initiate({ 'TPP-Notification-URI': receiver.url });
      assert.equal((await authorizeAndExecute(id)).status, 'ACCC');
      await eventually('the booking', () => of(id).length === 1);
      await new Promise((resolve) => setTimeout(resolve, 150));
      assert.deepEqual(
        of(id).map((request) => [request.body.status, request.body.previousStatus]),
        [['ACCC', 'ACTC']],
      );
    });

    test('a rejection carries its reason code', async () => {
      // Sam Scenario's investment savings account (a sandbox scenario): RJCT AG01 at execution.
      const { id } = await initiate(
        { 'TPP-Notification-URI': receiver.url },
        domestic({ debtorAccount: { value: '6000240000048', accountType: 'BBAN' } }),
      );
      assert.equal((await authorizeAndExecute(id)).status, 'RJCT');
      await eventually('the rejection', () => of(id).length === 1);
      const sent = of(id)[0]!.body;
      assert.deepEqual(
        [sent.status, sent.previousStatus, sent.reasonCode, sent.content],
        ['RJCT', 'ACTC', 'AG01', 'PROCESS'],
      );
    });

    test('SCA: started when the code is issued, finalised when its token is; failed when denied', async () => {
      const sca = {
        'TPP-Notification-URI': receiver.url,
        'TPP-Notification-Content-Preferred': 'status=SCA',
      };
      const { id } = await initiate(sca);
      await authorizeAndExecute(id);
      await eventually('two SCA notifications', () => of(id).length === 2);
      await new Promise((resolve) => setTimeout(resolve, 150));
      const href = `/psd2/v1/payments/${DOMESTIC}/${id}/status`;
      assert.deepEqual(
        of(id).map(({ body }) => ({
          ...body,
          notificationId: typeof body.notificationId,
          createdAt: typeof body.createdAt,
        })),
        ['started', 'finalised'].map((status) => ({
          notificationId: 'string',
          resourceType: 'payment',
          resourceId: id,
          status,
          createdAt: 'string',
          content: 'SCA',
          _links: { status: { href } },
        })),
      );
      // Dennis Declines (a sandbox scenario) says no: the authorization failed.
      const declined = await initiate(
        sca,
        domestic({ debtorAccount: { value: '6000240000056', accountType: 'BBAN' } }),
      );
      const refusal = await gateway.client.authorize(`PIS:${declined.id}`, 'st');
      assert.equal(refusal.get('error'), 'access_denied');
      await eventually('the failure', () => of(declined.id).length === 1);
      assert.deepEqual(
        of(declined.id).map(({ body }) => [body.status, body.content]),
        [['failed', 'SCA']],
      );
    });

    test('SCA, decoupled: one finalised when the token is issued', async () => {
      const sca = {
        'TPP-Notification-URI': receiver.url,
        'TPP-Notification-Content-Preferred': 'status=SCA',
      };
      const { id } = await initiate(sca);
      const tokens = await gateway.client.decoupled.authorize(`PIS:${id}`, { sleep: async () => {} });
      assert.equal(tokens.result, 'COMPLETE');
      await eventually('the SCA notification', () => of(id).length === 1);
      await new Promise((resolve) => setTimeout(resolve, 150));
      assert.deepEqual(
        of(id).map(({ body }) => [body.status, body.content]),
        [['finalised', 'SCA']],
      );
    });

    test('a signing basket: SCA on the basket, the status changes on each payment', async () => {
      const giro = (reference: string, value: string) => ({
        paymentProduct: 'sek-credit-transfer',
        tppPaymentReference: reference,
        debtorAccount: domestic().debtorAccount,
        creditorAccount: { value, accountType: 'BG' },
        creditor: { name: 'Elbolaget AB' },
        instructedAmount: { currency: 'SEK', amount: '250.00' },
      });
      const answer = await call(gateway.app, 'POST', '/psd2/se/v2/payments/private/signing-basket', {
        headers: gateway.client.tppHeaders(token, {
          'TPP-Notification-URI': receiver.url,
          'TPP-Notification-Content-Preferred': 'status=SCA,PROCESS',
        }),
        json: { payments: [giro('power', '505-0109'), giro('heat', '5050-1055')] },
      });
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
      const body = answer.body as { signingBaskedId: string; payments: { paymentId: string }[] };
      assert.deepEqual((answer.body as Record<string, unknown>).tppNotificationContentPreferred, [
        'SCA',
        'PROCESS',
      ]);
      const basketId = body.signingBaskedId;
      const psu = (await gateway.client.authorizeScope(`PIS:${basketId}`)).access_token;
      const executed = await gateway.client.execute('sek-credit-transfer', basketId, psu);
      assert.equal(executed.status, 200, JSON.stringify(executed.body));
      await eventually('the basket SCA', () => of(basketId).length === 2);
      assert.deepEqual(
        of(basketId).map(({ body: sent }) => [
          sent.resourceType,
          sent.status,
          sent.content,
          (sent._links as { status: { href: string } }).status.href,
        ]),
        ['started', 'finalised'].map((status) => [
          'basket',
          status,
          'SCA',
          `/psd2/v1/payments/sek-credit-transfer/${basketId}/status`,
        ]),
      );
      for (const { paymentId } of body.payments) {
        await eventually('the payment moved', () => of(paymentId).length === 1);
        assert.deepEqual(
          of(paymentId).map(({ body: sent }) => [sent.resourceType, sent.previousStatus, sent.content]),
          [['payment', 'ACTC', 'PROCESS']],
        );
      }
    });

    test('a consent: valid, then terminatedByTpp', async () => {
      const ais = await gateway.client.clientCredentialsToken('AIS');
      const created = await gateway.client.createConsent(ais, {
        headers: { 'TPP-Notification-URI': receiver.url },
      });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      assert.deepEqual(created.body.tppNotificationContentPreferred, ['PROCESS']);
      const consentId = created.body.consentId;
      await gateway.client.authorizeScope(`AIS:${consentId}`);
      const ended = await call(gateway.app, 'DELETE', `/psd2/v1/consents/${consentId}`, {
        headers: headersFor({ authorization: `Bearer ${ais}` }),
      });
      assert.equal(ended.status, 204);
      await eventually('two consent notifications', () => of(consentId).length === 2);
      assert.deepEqual(
        of(consentId).map((request) => [
          request.body.resourceType,
          request.body.status,
          request.body.previousStatus,
          request.body.content,
          (request.body._links as { status: { href: string } }).status.href,
        ]),
        [
          ['consent', 'valid', 'received', 'PROCESS', `/psd2/v1/consents/${consentId}/status`],
          ['consent', 'terminatedByTpp', 'valid', 'PROCESS', `/psd2/v1/consents/${consentId}/status`],
        ],
      );
    });

    test('a failure is retried after the back-off with the same notificationId, and listed', async () => {
      receiver.behave({ status: 500 }, { status: 204 });
      const { id } = await initiate({ 'TPP-Notification-URI': receiver.url });
      await authorizeAndExecute(id);
      await eventually('the first attempt', () => of(id).length === 1);
      await eventually('its recording', async () =>
        (await listed()).some((n) => n.resourceId === id && (n.attempts as unknown[]).length === 1),
      );
      const pending = (await listed()).find((n) => n.resourceId === id)!;
      assert.equal(pending.state, 'pending');
      const wait =
        Date.parse(String(pending.nextAttemptAt)) -
        Date.parse(String((pending.attempts as { at: string }[])[0]!.at));
      assert.ok(wait >= 8_000 && wait <= 12_000, `the first wait is 10 s ± 20 %, was ${wait} ms`);
      // Not before it is due.
      await new Promise((resolve) => setTimeout(resolve, 150));
      assert.equal(of(id).length, 1);
      time.advance(12_000);
      await eventually('the retry', () => of(id).length === 2);
      assert.equal(of(id)[0]!.body.notificationId, of(id)[1]!.body.notificationId);
      await eventually(
        'delivered',
        async () => (await listed()).find((n) => n.resourceId === id)!.state === 'delivered',
      );
      const done = (await listed()).find((n) => n.resourceId === id)!;
      assert.deepEqual(
        (done.attempts as Record<string, unknown>[]).map(({ attempt, statusCode, error }) => ({
          attempt,
          statusCode,
          error,
        })),
        [
          { attempt: 1, statusCode: 500, error: undefined },
          { attempt: 2, statusCode: 204, error: undefined },
        ],
      );
      assert.deepEqual(Object.keys(done).sort(), [
        'attempts',
        'content',
        'createdAt',
        'deliveredAt',
        'notificationId',
        'previousStatus',
        'resourceId',
        'resourceType',
        'state',
        'status',
        'uri',
      ]);
      assert.equal(done.notificationId, of(id)[0]!.body.notificationId);
      assert.equal(done.uri, receiver.url);
    });

    test('a receiver that never answers times out; a slow one within the timeout is delivered', async () => {
      receiver.behave('hang', { status: 200, delayMs: TIMEOUT_MS / 4 });
      const { id } = await initiate({ 'TPP-Notification-URI': receiver.url });
      await authorizeAndExecute(id);
      await eventually(
        'the timeout',
        async () =>
          ((await listed()).find((n) => n.resourceId === id)?.attempts as unknown[] | undefined)?.length ===
          1,
      );
      const timedOut = (await listed()).find((n) => n.resourceId === id)!;
      assert.equal((timedOut.attempts as { error: string }[])[0]!.error, 'timeout');
      const waited = (timedOut.attempts as { durationMs: number }[])[0]!.durationMs;
      assert.ok(waited >= TIMEOUT_MS - 5, `it waited the timeout, ${waited} ms`);
      time.advance(12_000);
      await eventually(
        'delivered slowly',
        async () => (await listed()).find((n) => n.resourceId === id)!.state === 'delivered',
      );
      receiver.behave({ status: 204 });
    });

    test('a refused connection is retried; a 4xx abandons at once; past 24 hours it is abandoned', async () => {
      const closed = `http://127.0.0.1:${await refusedPort()}/notify`;
      const refused = await initiate({ 'TPP-Notification-URI': closed });
      await authorizeAndExecute(refused.id);
      await eventually(
        'refused once',
        async () =>
          ((await listed()).find((n) => n.resourceId === refused.id)?.attempts as unknown[] | undefined)
            ?.length === 1,
      );
      const first = (await listed()).find((n) => n.resourceId === refused.id)!;
      assert.equal(first.state, 'pending');
      assert.equal((first.attempts as { error: string }[])[0]!.error, 'connection refused');

      receiver.behave({ status: 404 });
      const gone = await initiate({ 'TPP-Notification-URI': receiver.url });
      await authorizeAndExecute(gone.id);
      await eventually(
        'abandoned on 404',
        async () => (await listed()).find((n) => n.resourceId === gone.id)?.state === 'abandoned',
      );
      receiver.behave({ status: 204 });

      // A day later the refused one's next attempt fails again: its window is over.
      time.advance(24 * 3_600_000 + 60_000);
      token = await gateway.client.clientCredentialsToken();
      await eventually(
        'abandoned after the window',
        async () => (await listed()).find((n) => n.resourceId === refused.id)?.state === 'abandoned',
      );
      const last = (await listed()).find((n) => n.resourceId === refused.id)!;
      assert.deepEqual(
        (last.attempts as { error: string }[]).map((a) => a.error),
        ['connection refused', 'connection refused'],
      );
      assert.equal(last.nextAttemptAt, undefined);
    });

    test('the listing is bounded, newest first', async () => {
      const two = await listed(2);
      assert.equal(two.length, 2);
      const all = await listed(100);
      assert.ok(all.length > 2, `more than two listed: ${all.length}`);
      const times = all.map((n) => Date.parse(String(n.createdAt)));
      assert.deepEqual(
        times,
        [...times].sort((a, b) => b - a),
      );
      const tooMany = await call(gateway.app, 'GET', '/psd2/v1/notifications?limit=101', {
        headers: headersFor({ authorization: `Bearer ${token}` }),
      });
      assert.equal(tooMany.status, 400);
    });

    test('metrics count delivered, retried and abandoned notifications', async () => {
      const answer = await call(gateway.app, 'GET', '/metrics');
      const text = String(answer.body);
      for (const result of ['delivered', 'retried', 'abandoned']) {
        const line = new RegExp(`^psd2_notifications_total\\{result="${result}"\\} (\\d+)$`, 'm').exec(text);
        assert.ok(line !== null && Number(line[1]) > 0, `${result} counted`);
      }
    });

    test('every delivery is signed (verified with the key set the gateway publishes) and shaped as the webhook says', async () => {
      const keys = await call(gateway.app, 'GET', '/.well-known/jwks.json');
      assert.equal(keys.status, 200);
      const jwks = keys.body as NotificationKeySet;
      assert.ok(receiver.received.length > 10, `deliveries received: ${receiver.received.length}`);
      const origin = new URL(receiver.url).origin;
      for (const delivery of receiver.received) {
        const verified = await verifyNotification(
          {
            method: delivery.method,
            url: `${origin}${delivery.path}`,
            headers: delivery.headers,
            body: delivery.raw,
          },
          jwks,
        );
        assert.equal(verified.keyId, jwks.keys[0]!.kid);
        // And it is what the OpenAPI document's webhook says a delivery is.
        assert.ok(Value.Check(NotificationBody, delivery.body), JSON.stringify(delivery.body));
      }
      // The same bytes under another body are refused: the signature covers the digest of the body.
      const first = receiver.received[0]!;
      await assert.rejects(
        verifyNotification(
          {
            method: first.method,
            url: `${origin}${first.path}`,
            headers: first.headers,
            body: Buffer.from(JSON.stringify({ ...first.body, status: 'ACSC' })),
          },
          jwks,
        ),
        { code: 'DIGEST_MISMATCH' },
      );
    });
  });
}
