// Wrong passwords on the live login page (issue 37): a known and an unknown PSU id get the same answers,
// a stranger's failures lock out only the stranger's address, and guessing one PSU's password from many
// addresses is slowed down, without ever locking the customer out. The failures are counted in the database: on PGlite and on PostgreSQL.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { TEST_PSU_PASSWORD } from '../../src/sandbox/seed.ts';
import {
  DELAY_STEP_MS,
  LOCK_MS,
  MAX_DELAY_MS,
  MAX_FAILURES_PER_ADDRESS,
  MAX_FAILURES_PER_PSU,
} from '../../src/services/authorization/login-throttle.ts';
import { backends, type Gateway, manualClock, startGateway } from '../helpers/gateway.ts';
import { otherBank } from '../helpers/payments.ts';
import { codeParameters, openAuthorize, post } from '../helpers/psu-pages.ts';

const PRODUCT = 'other-bank-domestic-credit-transfer';
const AGDA_DEBTOR = { debtorAccount: { value: '6789555555550', accountType: 'BBAN' } };

for (const backend of backends()) {
  describe(`PSU login failures on ${backend}`, () => {
    const time = manualClock();
    /** The throttle's delays, in order; waiting moves the test's clock instead of real time. */
    const delays: number[] = [];
    const sleep = async (ms: number) => {
      delays.push(ms);
      time.advance(ms);
    };
    let gateway: Gateway;
    let token: string;
    before(async () => {
      gateway = await startGateway({ backend, clock: time.clock, sleep, config: { mode: 'live' } });
      token = await gateway.client.clientCredentialsToken();
    });
    after(() => gateway.close());

    async function paymentId(body: Record<string, unknown> = {}) {
      const answer = await gateway.client.initiate(token, {
        path: `/psd2/se/v2/payments/private/single/${PRODUCT}`,
        body: otherBank(body),
      });
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
      return answer.body.paymentId;
    }

    const parameters = (id: string) => codeParameters(gateway.sandboxApp, `PIS:${id}`, 'st-1');

    test('a known and an unknown PSU id get byte-identical answers to wrong passwords, locked alike from the fifth on', async () => {
      const login = await openAuthorize(gateway, parameters(await paymentId(AGDA_DEBTOR)));
      const from = { remoteAddress: '203.0.113.10' };
      const answers: { status: number; html: string }[][] = [];
      for (let attempt = 1; attempt <= 7; attempt++) {
        const pages = [];
        for (const psuId of ['198112289874', '190001019999']) {
          pages.push(await post(gateway, '/psu/login', login, { psu_id: psuId, password: 'wrong' }, from));
        }
        answers.push(pages.map((page) => ({ status: page.answer.status, html: page.html })));
      }
      for (const [attempt, [known, unknown]] of answers.entries()) {
        assert.deepEqual(known, unknown, `attempt ${attempt + 1}`);
        assert.equal(known!.status, 401);
        assert.doesNotMatch(
          known!.html,
          /198112289874|190001019999/,
          'the page does not repeat the id typed',
        );
      }
      assert.match(answers[3]![0]!.html, /The PSU id or the password is wrong\./);
      for (const [known] of answers.slice(4)) assert.match(known!.html, /Too many failed attempts/);
      // Locked from this address, even with the right password; 15 minutes later the PSU logs in.
      const right = { psu_id: '198112289874', password: TEST_PSU_PASSWORD };
      assert.match((await post(gateway, '/psu/login', login, right, from)).html, /Too many failed attempts/);
      time.advance(LOCK_MS + 1);
      const relogin = await openAuthorize(gateway, parameters(await paymentId(AGDA_DEBTOR)));
      const unlocked = await post(gateway, '/psu/login', relogin, right, from);
      assert.equal(unlocked.answer.status, 200);
      assert.match(unlocked.html, /Approve this payment\?/);
    });

    test("a stranger's failures from one address do not lock the PSU's login from another", async () => {
      const stranger = { remoteAddress: '203.0.113.66' };
      const ownAddress = { remoteAddress: '198.51.100.7' };
      const strangers = await openAuthorize(gateway, parameters(await paymentId(AGDA_DEBTOR)));
      for (let attempt = 1; attempt <= 8; attempt++) {
        await post(
          gateway,
          '/psu/login',
          strangers,
          { psu_id: '198112289874', password: `guess-${attempt}` },
          stranger,
        );
      }
      const right = { psu_id: '198112289874', password: TEST_PSU_PASSWORD };
      const blocked = await post(gateway, '/psu/login', strangers, right, stranger);
      assert.equal(blocked.answer.status, 401);
      assert.match(blocked.html, /Too many failed attempts/);
      const own = await openAuthorize(gateway, parameters(await paymentId(AGDA_DEBTOR)));
      const loggedIn = await post(gateway, '/psu/login', own, right, ownAddress);
      assert.equal(loggedIn.answer.status, 200);
      assert.match(loggedIn.html, /Approve this payment\?/);
    });

    test('guessing one PSU id from many addresses is slowed down, never locked: the customer logs in from another address', async () => {
      time.advance(LOCK_MS + 1); // the earlier tests' failures are forgotten
      delays.length = 0;
      const login = await openAuthorize(gateway, parameters(await paymentId(AGDA_DEBTOR)));
      const ids = ['198112289874', '190001019999'];
      /** A wrong password for the known and for the unknown id: their answers are byte-identical. */
      async function guess(password: string, remoteAddress: string) {
        const pages = [];
        for (const psuId of ids)
          pages.push(
            await post(gateway, '/psu/login', login, { psu_id: psuId, password }, { remoteAddress }),
          );
        const [known, unknown] = pages.map((page) => ({ status: page.answer.status, html: page.html }));
        assert.deepEqual(known, unknown, password);
        assert.equal(known!.status, 401);
        return known!.html;
      }
      // 20 addresses of 5 failures each: each address is locked after its fifth, none waits.
      const addresses = MAX_FAILURES_PER_PSU / MAX_FAILURES_PER_ADDRESS;
      for (let address = 1; address <= addresses; address++) {
        for (let attempt = 1; attempt <= MAX_FAILURES_PER_ADDRESS; attempt++) {
          await guess(`guess-${address}-${attempt}`, `192.0.2.${address}`);
        }
      }
      assert.deepEqual(delays, []);
      const right = { psu_id: '198112289874', password: TEST_PSU_PASSWORD };
      const fromOwn = { remoteAddress: '198.51.100.99' };
      const own = await openAuthorize(gateway, parameters(await paymentId(AGDA_DEBTOR)));
      const loggedIn = await post(gateway, '/psu/login', own, right, fromOwn);
      assert.equal(loggedIn.answer.status, 200);
      assert.match(loggedIn.html, /Approve this payment\?/);
      assert.deepEqual(delays, [DELAY_STEP_MS], 'the customer waited, the right password logged in');
      // The stranger goes on from fresh addresses: every answer, for the known id as for the unknown one,
      // is "wrong" after a delay that grows with the failures, up to MAX_DELAY_MS.
      delays.length = 0;
      const more = MAX_DELAY_MS / DELAY_STEP_MS + 2;
      for (let attempt = 1; attempt <= more; attempt++) {
        const html = await guess(`more-${attempt}`, `192.0.2.${100 + attempt}`);
        assert.match(html, /The PSU id or the password is wrong\./);
      }
      const grows = Array.from({ length: more }, (_, index) =>
        Math.min(MAX_DELAY_MS, (index + 1) * DELAY_STEP_MS),
      );
      assert.deepEqual(
        delays,
        grows.flatMap((delay) => [delay, delay]),
      );
      delays.length = 0;
      const again = await openAuthorize(gateway, parameters(await paymentId(AGDA_DEBTOR)));
      assert.equal((await post(gateway, '/psu/login', again, right, fromOwn)).answer.status, 200);
      assert.deepEqual(delays, [MAX_DELAY_MS]);
    });
  });
}
