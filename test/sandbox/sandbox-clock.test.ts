// The sandbox clock a TPP moves for its own app (POST /sandbox/clock), over HTTP on PGlite and on
// PostgreSQL: a future-dated payment runs when the clock passes its date (and not before), a consent
// expires once the clock passes its validity (written expired; the next read answers CONSENT_EXPIRED),
// one app's clock leaves another's alone, a reset returns it to real time, bad advances answer 400 with
// the whole error body, a call without the app's client token 401, and live has no clock.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { TppClient } from '@psd2-gateway/client';
import { sql } from 'drizzle-orm';
import { addDays } from '../../src/domain/dates.ts';
import { backends, bankDate, type Gateway, queryRows, startGateway } from '../helpers/gateway.ts';
import { BAD_REQUEST, call, NOT_FOUND, UNAUTHORIZED } from '../helpers/http.ts';
import { domestic } from '../helpers/payments.ts';
import { advanceClock, aheadBy, readClock } from '../helpers/sandbox-clock.ts';

const PRODUCT = 'handelsbanken-domestic-credit-transfer';
const PATH = `/psd2/se/v2/payments/private/single/${PRODUCT}`;
const DAY_MS = 86_400_000;
const whole = (answer: { status: number; body: unknown }) => ({ status: answer.status, body: answer.body });
const BAD_ADVANCE = BAD_REQUEST({
  code: 'FORMAT_ERROR',
  path: 'advance',
  text: 'advance must be an ISO 8601 duration of days, hours and minutes, from PT1M to P400D (for example P2D or PT36H)',
});

for (const backend of backends()) {
  describe(`sandbox clock on ${backend}`, () => {
    let gateway: Gateway;
    let client: TppClient;
    let token: string;
    let ais: string;
    before(async () => {
      gateway = await startGateway({ backend });
      client = gateway.client;
      token = await client.clientCredentialsToken();
      ais = await client.clientCredentialsToken('AIS');
    });
    after(() => gateway.close());

    /** Each test starts on real time. */
    async function reset() {
      assert.equal((await call(gateway.app, 'POST', '/sandbox/reset')).status, 200);
    }

    test('GET /sandbox/clock: real time, offset PT0S, until the app advances it', async () => {
      await reset();
      const before = Date.now();
      const read = await readClock(client, token);
      assert.equal(read.status, 200);
      assert.deepEqual(Object.keys(read.body as object).sort(), ['now', 'offset']);
      assert.equal((read.body as { offset: string }).offset, 'PT0S');
      assert.ok(aheadBy(read.body, 0, before), JSON.stringify(read.body));
    });

    test('a future-dated payment runs when the clock passes its date, not before', async () => {
      await reset();
      const date = addDays(bankDate(), 3);
      const initiated = await client.initiate(token, {
        path: PATH,
        body: domestic({ requestedExecutionDate: date }),
      });
      assert.equal(initiated.status, 200, JSON.stringify(initiated.body));
      const paymentId = initiated.body.paymentId;
      const executed = await client.authorizeAndExecute(PRODUCT, paymentId);
      assert.deepEqual(whole(executed), { status: 200, body: { paymentId, transactionStatus: 'ACCP' } });

      const before = Date.now();
      const first = await advanceClock(client, token, { advance: 'P1D' });
      assert.equal(first.status, 200);
      assert.equal((first.body as { offset: string }).offset, 'P1D');
      assert.ok(aheadBy(first.body, DAY_MS, before), JSON.stringify(first.body));
      assert.deepEqual(whole(await client.status(PRODUCT, paymentId, token, 'SE')), {
        status: 200,
        body: { paymentId, transactionStatus: 'ACCP' },
      });

      const second = await advanceClock(client, token, { advance: 'P2DT12H' });
      assert.equal((second.body as { offset: string }).offset, 'P3DT12H');
      assert.deepEqual(whole(await client.status(PRODUCT, paymentId, token, 'SE')), {
        status: 200,
        body: { paymentId, transactionStatus: 'ACCC' },
      });
      const read = await readClock(client, token);
      assert.deepEqual(read, {
        status: 200,
        body: { now: (read.body as { now: string }).now, offset: 'P3DT12H' },
      });
      assert.ok(aheadBy(read.body, 3.5 * DAY_MS, before), JSON.stringify(read.body));
    });

    test('a consent expires once the clock passes its validUntil: written expired, reads CONSENT_EXPIRED', async () => {
      await reset();
      const validUntil = addDays(bankDate(), 1);
      const created = await client.createConsent(ais, {
        body: { access: 'ALL_ACCOUNTS', validUntil, frequencyPerDay: 4 },
      });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const consentId = created.body.consentId;
      const tokens = await client.authorizeScope(`AIS:${consentId}`);
      assert.equal((await client.read('/psd2/v1/accounts', tokens.access_token)).status, 200);

      assert.equal((await advanceClock(client, token, { advance: 'P1D' })).status, 200);
      assert.deepEqual(whole(await client.read(`/psd2/v1/consents/${consentId}/status`, ais)), {
        status: 200,
        body: { consentStatus: 'valid' },
      });

      assert.equal((await advanceClock(client, token, { advance: 'P1D' })).status, 200);
      const rows = await queryRows<{ status: string }>(
        gateway.store,
        sql`SELECT status FROM consents WHERE consent_id = ${consentId}`,
      );
      assert.deepEqual(rows, [{ status: 'expired' }]);
      assert.deepEqual(whole(await client.read(`/psd2/v1/consents/${consentId}/status`, ais)), {
        status: 200,
        body: { consentStatus: 'expired' },
      });
      assert.deepEqual(
        whole(await client.read('/psd2/v1/accounts', tokens.access_token)),
        UNAUTHORIZED({ code: 'CONSENT_EXPIRED', text: 'The consent has expired' }),
      );
    });

    test("app A's clock does not move app B's; a reset returns every clock to real time", async () => {
      await reset();
      const other = await gateway.addApp('Clockless app');
      const otherToken = await other.clientCredentialsToken();
      assert.equal((await advanceClock(client, token, { advance: 'P5D' })).status, 200);
      const before = Date.now();
      const theirs = await readClock(other, otherToken);
      assert.equal((theirs.body as { offset: string }).offset, 'PT0S');
      assert.ok(aheadBy(theirs.body, 0, before), JSON.stringify(theirs.body));
      assert.equal(((await readClock(client, token)).body as { offset: string }).offset, 'P5D');
      // Their requests run on their own time: tomorrow is a valid end of a consent for B, past for A.
      const tomorrow = { access: 'ALL_ACCOUNTS' as const, validUntil: addDays(bankDate(), 1) };
      const otherAis = await other.clientCredentialsToken('AIS');
      assert.equal((await other.createConsent(otherAis, { body: tomorrow })).status, 201);
      assert.deepEqual(
        whole(await client.createConsent(ais, { body: tomorrow })),
        BAD_REQUEST({
          code: 'FORMAT_ERROR',
          path: 'validUntil',
          text: 'validUntil must be a date from today to 180 days ahead',
        }),
      );

      await reset();
      const after = await readClock(client, token);
      assert.equal((after.body as { offset: string }).offset, 'PT0S');
      assert.ok(aheadBy(after.body, 0, before), JSON.stringify(after.body));
    });

    test("a short-term consent approved on an app's moved clock is valid on it", async () => {
      await reset();
      assert.equal((await advanceClock(client, token, { advance: 'P10D' })).status, 200);
      const path = '/psd2/se/v2/payments/private/accounts';
      const created = await call(gateway.app, 'POST', `${path}/shorttermconsents`, {
        headers: client.tppHeaders(token),
        json: { access: 'ALL_ACCOUNTS' },
      });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const consentId = (created.body as { consentId: string }).consentId;
      const psuToken = (await client.authorizeScope(`PIS:${consentId}`)).access_token;
      const read = await call(gateway.app, 'GET', path, { headers: client.tppHeaders(psuToken) });
      assert.equal(read.status, 200, JSON.stringify(read.body));
    });

    test('concurrent advances of one app add up', async () => {
      await reset();
      const answers = await Promise.all(
        ['P1D', 'PT2H', 'PT30M'].map((advance) => advanceClock(client, token, { advance })),
      );
      assert.deepEqual(
        answers.map((answer) => answer.status),
        [200, 200, 200],
      );
      assert.equal(((await readClock(client, token)).body as { offset: string }).offset, 'P1DT2H30M');
    });

    test('bad advances answer 400 with the whole error body; the clock stays', async () => {
      await reset();
      for (const advance of [
        'P0D',
        'PT0M',
        'P401D',
        'P1Y',
        'P2W',
        'PT30S',
        'P',
        'PT',
        '2 days',
        '-P1D',
        'P1DT',
      ]) {
        assert.deepEqual(await advanceClock(client, token, { advance }), BAD_ADVANCE, advance);
      }
      assert.deepEqual(
        await advanceClock(client, token, { advance: 2 }),
        BAD_REQUEST({
          code: 'FORMAT_ERROR',
          path: 'advance',
          text: 'advance must be string',
        }),
      );
      assert.equal(((await readClock(client, token)).body as { offset: string }).offset, 'PT0S');
    });

    test('the clock runs at most P1000D ahead of real time', async () => {
      await reset();
      assert.equal((await advanceClock(client, token, { advance: 'P400D' })).status, 200);
      assert.equal((await advanceClock(client, token, { advance: 'P400D' })).status, 200);
      assert.deepEqual(
        await advanceClock(client, token, { advance: 'P201D' }),
        BAD_REQUEST({
          code: 'FORMAT_ERROR',
          path: 'advance',
          text: 'advance: the sandbox clock may run at most P1000D ahead of real time (POST /sandbox/reset sets it back)',
        }),
      );
      assert.equal(((await readClock(client, token)).body as { offset: string }).offset, 'P800D');
      await reset();
    });

    test("with a PSU's token: 401", async () => {
      const initiated = await client.initiate(token, { path: PATH, body: domestic() });
      const psuToken = (await client.authorizeScope(`PIS:${initiated.body.paymentId}`)).access_token;
      assert.deepEqual(
        await readClock(client, psuToken),
        UNAUTHORIZED({
          code: 'TOKEN_INVALID',
          path: 'Authorization',
          text: 'This call needs a client credentials token of the app',
        }),
      );
    });

    test('without a client credentials token of the app: 401', async () => {
      const none = await client.request('GET', '/sandbox/clock');
      assert.deepEqual(
        whole(none),
        UNAUTHORIZED({
          code: 'TOKEN_INVALID',
          path: 'Authorization',
          text: 'An access token is required: Authorization: Bearer <token>',
        }),
      );
    });
  });
}

test('a live gateway has no sandbox clock', async () => {
  const live = await startGateway({ config: { mode: 'live' } });
  try {
    for (const method of ['GET', 'POST'] as const) {
      const answer = await call(
        live.app,
        method,
        '/sandbox/clock',
        method === 'POST' ? { json: { advance: 'P1D' } } : {},
      );
      assert.deepEqual(
        whole(answer),
        NOT_FOUND({ code: 'RESOURCE_UNKNOWN', text: `There is no endpoint for ${method} at this path` }),
        method,
      );
    }
  } finally {
    await live.close();
  }
});
