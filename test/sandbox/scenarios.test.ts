// The sandbox's scenarios, each driven through HTTP as a TPP would: rejected executions (AM04, AC06,
// AM02, AG01) from Sam Scenario's accounts, a PSU who declines or lets the authorization run out,
// decoupled sessions that stay in progress and then complete, are cancelled, expire or are polled
// too often, consents that expire or are revoked, ACCESS_EXCEEDED, and funds that are not there;
// payments that settle later and consents outlived, on the app's sandbox clock (the listed rows here;
// settlement.test.ts and sandbox-clock.test.ts in full). Everyone else still succeeds, as the contract says.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { TppClient } from '@psd2-gateway/client';
import { addDays } from '../../src/domain/dates.ts';
import {
  SCENARIO_TABLE,
  type ScenarioOutcome,
  type ScenarioRow,
  type ScenarioTrigger,
} from '../../src/sandbox/scenarios.ts';
import { TEST_ACCOUNTS } from '../../src/sandbox/test-data.ts';
import { initDecoupled, postLink } from '../helpers/decoupled.ts';
import { bankDate, type Gateway, startGateway } from '../helpers/gateway.ts';
import { call, errorBody, UNAUTHORIZED } from '../helpers/http.ts';
import { ACCOUNTS, domestic, otherBank } from '../helpers/payments.ts';
import { advanceClock, readClock } from '../helpers/sandbox-clock.ts';

const DOMESTIC = 'handelsbanken-domestic-credit-transfer';
const PATH = `/psd2/se/v2/payments/private/single/${DOMESTIC}`;
const PSU = {
  sam: '198503012380',
  dennis: '197906144410',
  sofia: '199109022260',
  erik: '196604201274',
  max: '198811113391',
  ella: '197307072525',
  rolf: '199402282637',
} as const;

/** A scenario PSU's account, by its account number (clearing number 6000). */
function scenarioAccount(account: string) {
  const row = TEST_ACCOUNTS.find((candidate) => candidate.bban === `6000${account}`);
  assert.ok(row !== undefined, account);
  return row;
}

const whole = (answer: { status: number; body: unknown }) => ({ status: answer.status, body: answer.body });

describe('sandbox scenarios', () => {
  let gateway: Gateway;
  let client: TppClient;
  let token: string;
  let ais: string;
  before(async () => {
    gateway = await startGateway();
    client = gateway.client;
    token = await client.clientCredentialsToken();
    ais = await client.clientCredentialsToken('AIS');
  });
  after(() => gateway.close());

  /** A domestic payment from a scenario account to Agda, authorized in the sandbox's redirect flow. */
  async function authorizedPayment(account: string, amount = '125.50') {
    const initiated = await client.initiate(token, {
      path: PATH,
      body: domestic({
        debtorAccount: { value: `6000${account}`, accountType: 'BBAN' },
        instructedAmount: { currency: 'SEK', amount },
      }),
    });
    assert.equal(initiated.status, 200, JSON.stringify(initiated.body));
    const paymentId = initiated.body.paymentId;
    return { paymentId, psuToken: (await client.authorizeScope(`PIS:${paymentId}`)).access_token };
  }

  async function executed(account: string, amount?: string) {
    const { paymentId, psuToken } = await authorizedPayment(account, amount);
    return { paymentId, answer: whole(await client.execute(DOMESTIC, paymentId, psuToken)) };
  }

  const rejected = (paymentId: string, reasonCode: string, reason: string) => ({
    status: 200,
    body: { paymentId, transactionStatus: 'RJCT', reasonCode, reason },
  });

  test('an empty account: RJCT AM04, and the status says so', async () => {
    const { paymentId, answer } = await executed('240000005');
    const expected = rejected(paymentId, 'AM04', 'insufficient funds on the debtor account');
    assert.deepEqual(answer, expected);
    assert.deepEqual(whole(await client.status(DOMESTIC, paymentId, token, 'SE')), expected);
  });

  test('a blocked account: RJCT AC06', async () => {
    const { paymentId, answer } = await executed('240000013');
    assert.deepEqual(answer, rejected(paymentId, 'AC06', 'the debtor account is blocked'));
  });

  test('an account with a daily limit of SEK 1,000.00: within it ACCC, beyond it RJCT AM02', async () => {
    const first = await executed('240000021', '600.00');
    assert.deepEqual(first.answer, {
      status: 200,
      body: { paymentId: first.paymentId, transactionStatus: 'ACCC' },
    });
    const second = await executed('240000021', '500.00');
    assert.deepEqual(
      second.answer,
      rejected(second.paymentId, 'AM02', 'the daily limit of the debtor account is exceeded'),
    );
  });

  test('an investment savings account (ISK): RJCT AG01', async () => {
    const { paymentId, answer } = await executed('240000048');
    assert.deepEqual(
      answer,
      rejected(paymentId, 'AG01', 'payments cannot be made from this type of account'),
    );
  });

  test('everyone else still succeeds, as the contract says', async () => {
    const ordinary = await client.initiate(token, {
      path: PATH,
      body: domestic({ instructedAmount: { currency: 'SEK', amount: '99999.00' } }),
    });
    const executedOrdinary = await client.authorizeAndExecute(DOMESTIC, ordinary.body.paymentId);
    assert.deepEqual(whole(executedOrdinary), {
      status: 200,
      body: { paymentId: ordinary.body.paymentId, transactionStatus: 'ACCC' },
    });
  });

  test('Dennis Declines: the redirect answers access_denied; decoupled IN_PROGRESS once, then USER_CANCEL', async () => {
    const initiated = await client.initiate(token, {
      path: PATH,
      body: domestic({ debtorAccount: { value: '6000240000056', accountType: 'BBAN' } }),
    });
    const scope = `PIS:${initiated.body.paymentId}`;
    const query = await client.authorize(scope, 'state-1');
    assert.deepEqual(Object.fromEntries(query), {
      error: 'access_denied',
      error_description: 'the PSU denied the authorization',
      state: 'state-1',
    });
    const polls = await decoupledPolls(scope, 3);
    assert.deepEqual(polls, [
      { status: 200, body: { result: 'IN_PROGRESS', sleep_time: 2000 } },
      { status: 200, body: { result: 'USER_CANCEL' } },
      { status: 400, body: { error: 'invalid_request', error_description: 'the session has ended' } },
    ]);
  });

  /** Starts a decoupled session for a scope (same device) and polls it `count` times. */
  async function decoupledPolls(scope: string, count: number, body: Record<string, unknown> = {}) {
    const init = await initDecoupled(gateway, {
      client_id: client.clientId,
      scope,
      psu_client_ip: '192.0.2.1',
      bisa_same_device: true,
      ...body,
    });
    assert.equal(init.status, 200, JSON.stringify(init.body));
    const href = (init.body as { _links: { token: { href: string } } })._links.token.href;
    const answers = [];
    for (let poll = 0; poll < count; poll += 1) answers.push(whole(await postLink(gateway, href)));
    return answers;
  }

  test('Sofia Slow: IN_PROGRESS twice, then COMPLETE with the PSU token', async () => {
    const initiated = await client.initiate(token, {
      path: PATH,
      body: domestic({ debtorAccount: { value: '6000240000064', accountType: 'BBAN' } }),
    });
    const polls = await decoupledPolls(`PIS:${initiated.body.paymentId}`, 3);
    assert.deepEqual(polls.slice(0, 2), [
      { status: 200, body: { result: 'IN_PROGRESS', sleep_time: 2000 } },
      { status: 200, body: { result: 'IN_PROGRESS', sleep_time: 2000 } },
    ]);
    const complete = polls[2]!.body as { access_token: string };
    assert.deepEqual(polls[2], {
      status: 200,
      body: {
        result: 'COMPLETE',
        access_token: complete.access_token,
        token_type: 'Bearer',
        expires_in: 900,
      },
    });
    const paid = await client.execute(DOMESTIC, initiated.body.paymentId, complete.access_token);
    assert.equal(paid.body.transactionStatus, 'ACCC');
  });

  test('Erik Expires: the redirect answers that the page expired; decoupled IN_PROGRESS once, then intent_expired', async () => {
    const initiated = await client.initiate(token, {
      path: PATH,
      body: domestic({ debtorAccount: { value: '6000240000072', accountType: 'BBAN' } }),
    });
    const scope = `PIS:${initiated.body.paymentId}`;
    assert.deepEqual(Object.fromEntries(await client.authorize(scope, 's')), {
      error: 'access_denied',
      error_description: 'the authorization page expired',
      state: 's',
    });
    assert.deepEqual(await decoupledPolls(scope, 2), [
      { status: 200, body: { result: 'IN_PROGRESS', sleep_time: 2000 } },
      {
        status: 400,
        body: {
          error: 'intent_expired',
          error_description: 'the PSU did not complete the identification in time',
        },
      },
    ]);
  });

  test('Max Polling: IN_PROGRESS twice, then mbid_max_polling', async () => {
    const initiated = await client.initiate(token, {
      path: PATH,
      body: domestic({ debtorAccount: { value: '6000240000080', accountType: 'BBAN' } }),
    });
    assert.deepEqual(await decoupledPolls(`PIS:${initiated.body.paymentId}`, 4), [
      { status: 200, body: { result: 'IN_PROGRESS', sleep_time: 2000 } },
      { status: 200, body: { result: 'IN_PROGRESS', sleep_time: 2000 } },
      {
        status: 400,
        body: {
          error: 'mbid_max_polling',
          error_description: 'polled too often: wait sleep_time (2000 ms) between polls',
        },
      },
      { status: 400, body: { error: 'invalid_request', error_description: 'the session has ended' } },
    ]);
  });

  /** A consent named for a scenario PSU (PSU-ID), authorized by that PSU: its id and tokens. */
  async function consentOf(psuId: string) {
    const created = await client.createConsent(ais, { headers: { 'PSU-ID': psuId } });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const consentId = created.body.consentId;
    return { consentId, tokens: await client.authorizeScope(`AIS:${consentId}`) };
  }

  /** A consent valid for `days` days from the app's today, authorized: its id and tokens. */
  async function consentFor(days: number) {
    const clock = await readClock(client, token);
    const validUntil = addDays(bankDate(new Date((clock.body as { now: string }).now)), days);
    const created = await client.createConsent(ais, { body: { access: 'ALL_ACCOUNTS', validUntil } });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const consentId = created.body.consentId;
    return { consentId, tokens: await client.authorizeScope(`AIS:${consentId}`) };
  }

  async function advance(by: string) {
    const answer = await advanceClock(client, token, { advance: by });
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
  }

  async function refresh(refreshToken: string) {
    return whole(
      await client.request('POST', '/oauth2/token/1.0', {
        form: { grant_type: 'refresh_token', refresh_token: refreshToken, client_id: client.clientId },
      }),
    );
  }

  const consentGone = {
    status: 400,
    body: {
      error: 'invalid_grant',
      error_description: 'the consent of the refresh token is no longer valid',
    },
  };

  test('Ella Expired: her consent expires as she approves it', async () => {
    const { consentId, tokens } = await consentOf(PSU.ella);
    assert.deepEqual(whole(await client.read(`/psd2/v1/consents/${consentId}/status`, ais)), {
      status: 200,
      body: { consentStatus: 'expired' },
    });
    assert.deepEqual(
      whole(await client.read('/psd2/v1/accounts', tokens.access_token)),
      UNAUTHORIZED({ code: 'CONSENT_EXPIRED', text: 'The consent has expired' }),
    );
    assert.deepEqual(await refresh(tokens.refresh_token!), consentGone);
  });

  test('Rolf Revoked: he revokes his consent at the bank right after approving it', async () => {
    const { consentId, tokens } = await consentOf(PSU.rolf);
    assert.deepEqual(whole(await client.read(`/psd2/v1/consents/${consentId}/status`, ais)), {
      status: 200,
      body: { consentStatus: 'revokedByPsu' },
    });
    assert.deepEqual(
      whole(await client.read('/psd2/v1/accounts', tokens.access_token)),
      UNAUTHORIZED({ code: 'CONSENT_INVALID', text: 'The consent was revoked by the PSU' }),
    );
    assert.deepEqual(await refresh(tokens.refresh_token!), consentGone);
  });

  test('ACCESS_EXCEEDED: a consent of one read a day, read twice without the PSU', async () => {
    const created = await client.createConsent(ais, { body: { access: 'ALL_ACCOUNTS', frequencyPerDay: 1 } });
    const tokens = await client.authorizeScope(`AIS:${created.body.consentId}`);
    const withoutPsu = () => client.read('/psd2/v1/accounts', tokens.access_token, { psuPresent: false });
    assert.equal((await withoutPsu()).status, 200);
    assert.deepEqual(whole(await withoutPsu()), {
      status: 429,
      body: errorBody(429, 'Too Many Requests', {
        code: 'ACCESS_EXCEEDED',
        text: 'The consent allows 1 reads a day of this resource without the PSU (send PSU-IP-Address when the PSU is present)',
      }),
    });
  });

  test('funds: false for the empty account, and for more than a balance', async () => {
    const funds = (body: unknown) =>
      client.request('POST', '/psd2/v1/funds-confirmations', {
        headers: client.tppHeaders(token),
        json: body,
      });
    const empty = scenarioAccount('240000005');
    assert.deepEqual(
      whole(
        await funds({ account: { iban: empty.iban }, instructedAmount: { currency: 'SEK', amount: '1.00' } }),
      ),
      { status: 200, body: { fundsAvailable: false } },
    );
    assert.deepEqual(
      whole(
        await funds({
          account: { iban: ACCOUNTS.tolvan.iban },
          instructedAmount: { currency: 'SEK', amount: '12500000.01' },
        }),
      ),
      { status: 200, body: { fundsAvailable: false } },
    );
  });

  test('the table lists every scenario, with the IBAN the empty account has, and /sandbox/test-data carries it', async () => {
    assert.ok(
      SCENARIO_TABLE.some((row) => row.when.account === scenarioAccount('240000005').iban),
      'the empty account by its IBAN',
    );
    const answer = await call(gateway.app, 'GET', '/sandbox/test-data');
    assert.equal(answer.status, 200);
    const body = answer.body as { scenarios: unknown; psus: { psuId: string; name: string }[] };
    assert.deepEqual(body.scenarios, SCENARIO_TABLE);
    for (const [name, psuId] of Object.entries(PSU)) {
      assert.ok(
        body.psus.some((psu) => psu.psuId === psuId),
        `${name} is listed`,
      );
    }
  });

  /** What a scenario's trigger, used as listed, makes the API answer: the fields its outcome lists. */
  async function observe(when: ScenarioTrigger): Promise<ScenarioOutcome> {
    const account = when.account ?? '';
    const amount = when.amount === undefined ? {} : { currency: when.currency!, amount: when.amount };
    const initiate = async () => {
      const initiated = await client.initiate(token, {
        path: PATH,
        body: domestic({
          debtorAccount: { value: account, accountType: 'BBAN' },
          ...(when.amount === undefined ? {} : { instructedAmount: amount }),
        }),
      });
      assert.equal(initiated.status, 200, JSON.stringify(initiated.body));
      return initiated.body.paymentId;
    };
    // Decoupled polls until the session ends (bounded), each answer's result or error.
    const polls = async (scope: string) => {
      const answers = await decoupledPolls(scope, 4);
      const ends = answers.findIndex(
        (answer) => (answer.body as { result?: string }).result !== 'IN_PROGRESS',
      );
      return answers
        .slice(0, ends + 1)
        .map(
          (answer) =>
            (answer.body as { result?: string; error?: string }).result ??
            (answer.body as { error: string }).error,
        );
    };
    switch (when.action) {
      case 'execute': {
        const paymentId = await initiate();
        const psuToken = (await client.authorizeScope(`PIS:${paymentId}`)).access_token;
        const executed = await client.execute(DOMESTIC, paymentId, psuToken);
        assert.equal(executed.status, 200);
        const body = executed.body as { transactionStatus: string; reasonCode?: string };
        return { transactionStatus: body.transactionStatus, reasonCode: body.reasonCode! };
      }
      case 'authorize': {
        const scope = `PIS:${await initiate()}`;
        const redirectError = (await client.authorize(scope, 's')).get('error')!;
        return { redirectError, decoupledPolls: await polls(scope) };
      }
      case 'decoupled':
        return { decoupledPolls: await polls(`PIS:${await initiate()}`) };
      case 'consent': {
        const { consentId, tokens } =
          when.validDays === undefined ? await consentOf(when.psuId!) : await consentFor(when.validDays);
        if (when.advance !== undefined) await advance(when.advance);
        const status = await client.read(`/psd2/v1/consents/${consentId}/status`, ais);
        const read = await client.read('/psd2/v1/accounts', tokens.access_token);
        const refreshed = await refresh(tokens.refresh_token!);
        return {
          consentStatus: (status.body as { consentStatus: string }).consentStatus,
          readStatus: read.status,
          readCode: (read.body as unknown as { tppMessages: { code: string }[] }).tppMessages[0]!.code,
          refreshError: (refreshed.body as { error: string }).error,
        };
      }
      case 'read': {
        const created = await client.createConsent(ais, {
          body: { access: 'ALL_ACCOUNTS', frequencyPerDay: when.frequencyPerDay! },
        });
        const tokens = await client.authorizeScope(`AIS:${created.body.consentId}`);
        let last: { status: number; body: unknown } = { status: 0, body: undefined };
        for (let read = 0; read < when.reads!; read += 1) {
          last = whole(await client.read('/psd2/v1/accounts', tokens.access_token, { psuPresent: false }));
        }
        return {
          readStatus: last.status,
          readCode: (last.body as { tppMessages: { code: string }[] }).tppMessages[0]!.code,
        };
      }
      case 'settle': {
        const initiated = await client.initiate(token, {
          path: `/psd2/se/v2/payments/private/single/${when.product!}`,
          body: otherBank({ creditorAccount: { value: when.creditorAccount!, accountType: 'BBAN' } }),
        });
        assert.equal(initiated.status, 200, JSON.stringify(initiated.body));
        const paymentId = initiated.body.paymentId;
        const executed = await client.authorizeAndExecute(when.product!, paymentId);
        await advance(when.advance!);
        const status = await client.status(when.product!, paymentId, token, 'SE');
        const body = status.body as { transactionStatus: string; reasonCode?: string };
        return {
          executedStatus: (executed.body as { transactionStatus: string }).transactionStatus,
          transactionStatus: body.transactionStatus,
          ...(body.reasonCode === undefined ? {} : { reasonCode: body.reasonCode }),
        };
      }
      case 'funds-confirmation': {
        const answer = await client.request('POST', '/psd2/v1/funds-confirmations', {
          headers: client.tppHeaders(token),
          json: { account: { iban: account }, instructedAmount: amount },
        });
        assert.equal(answer.status, 200);
        return { fundsAvailable: (answer.body as { fundsAvailable: boolean }).fundsAvailable };
      }
    }
  }

  test('every listed trigger, used as listed (GET /sandbox/test-data), produces the listed outcome', async () => {
    // On a sandbox of its own: the daily limit counts the day's payments of the tests above.
    const fresh = await startGateway();
    const saved = { gateway, client, token, ais };
    try {
      gateway = fresh;
      client = fresh.client;
      token = await client.clientCredentialsToken();
      ais = await client.clientCredentialsToken('AIS');
      const listing = await call(gateway.app, 'GET', '/sandbox/test-data');
      const scenarios = (listing.body as { scenarios: ScenarioRow[] }).scenarios;
      assert.equal(scenarios.length, SCENARIO_TABLE.length);
      for (const row of scenarios) {
        assert.deepEqual(await observe(row.when), row.expected, row.trigger);
      }
    } finally {
      ({ gateway, client, token, ais } = saved);
      await fresh.close();
    }
  });
});
