// The bank's core banking system down, as the TPP meets it: a gateway whose CoreBanking is the HTTP
// adapter, against the stand-in bank (test/stand-ins/core-banking.ts) answering 5xx on every attempt or
// stopped (the connection refused). Initiation, execution and account reads answer 503
// SERVICE_UNAVAILABLE with Retry-After in the API's error shape, never a 500; once the bank answers again,
// the same calls succeed.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import {
  type HttpCoreBanking,
  httpCoreBanking,
} from '../../src/adapters/http-core-banking/http-core-banking.ts';
import { type Gateway, sibling, startGateway } from '../helpers/gateway.ts';
import { errorBody } from '../helpers/http.ts';
import { ACCOUNTS, domestic } from '../helpers/payments.ts';
import {
  type CoreBankingStandIn,
  startCoreBankingStandIn,
  stoppedOrigin,
} from '../stand-ins/core-banking.ts';

const PRODUCT = 'handelsbanken-domestic-credit-transfer';
const PATH = `/psd2/se/v2/payments/private/single/${PRODUCT}`;
const ADAPTER = { timeoutMs: 300, retry: { attempts: 2, baseDelayMs: 10, maxDelayMs: 20 } };

/** The whole answer a TPP gets while the core banking system is away; the correlation id is the answer's. */
function unavailable(answer: { status: number; headers: Headers | Record<string, unknown>; body: unknown }) {
  const header = (name: string) =>
    answer.headers instanceof Headers ? answer.headers.get(name) : answer.headers[name];
  const id = header('x-correlation-id');
  return {
    actual: { status: answer.status, retryAfter: header('retry-after'), body: answer.body },
    expected: {
      status: 503,
      retryAfter: '5',
      body: errorBody(503, 'Service Unavailable', {
        code: 'SERVICE_UNAVAILABLE',
        text: `The bank's core banking system cannot answer now; try again in 5 seconds (correlation id ${id})`,
      }),
    },
  };
}

function assertUnavailable(answer: Parameters<typeof unavailable>[0], what: string) {
  const { actual, expected } = unavailable(answer);
  assert.deepEqual(actual, expected, what);
}

describe('the core banking system down', () => {
  let bank: CoreBankingStandIn;
  let core: HttpCoreBanking;
  let gateway: Gateway;
  let token: string;

  before(async () => {
    bank = await startCoreBankingStandIn();
    core = httpCoreBanking({ url: bank.url, ...ADAPTER });
    gateway = await startGateway({ coreBanking: () => core });
    token = await gateway.client.clientCredentialsToken();
  });
  after(async () => {
    await gateway.close();
    core.close();
    await bank.close();
  });

  test('answering 5xx: an initiation, an execution and an account read answer 503 with Retry-After', async () => {
    bank.script({ kind: 'fail-before', status: 503 }, ADAPTER.retry.attempts, 'all');
    assertUnavailable(await gateway.client.initiate(token, { path: PATH, body: domestic() }), 'initiation');

    const initiated = await gateway.client.initiate(token, { path: PATH, body: domestic() });
    assert.equal(initiated.status, 200, JSON.stringify(initiated.body));
    const { paymentId } = initiated.body;
    const psuToken = (await gateway.client.authorizeScope(`PIS:${paymentId}`)).access_token;
    bank.script({ kind: 'fail-before', status: 502 }, ADAPTER.retry.attempts);
    const execute = () =>
      gateway.client.request('PUT', `/psd2/v1/payments/${PRODUCT}/${paymentId}`, {
        headers: { ...gateway.client.tppHeaders(psuToken), 'TPP-Request-ID': randomUUID() },
      });
    assertUnavailable(await execute(), 'execution');
    assert.equal(bank.book.bookings.get(paymentId), undefined);

    const aisToken = await gateway.client.clientCredentialsToken('AIS');
    const consent = await gateway.client.createConsent(aisToken);
    const psuAis = (await gateway.client.authorizeScope(`AIS:${consent.body.consentId}`)).access_token;
    bank.script({ kind: 'fail-before', status: 500 }, ADAPTER.retry.attempts, 'all');
    assertUnavailable(
      await gateway.client.accounts.balances(ACCOUNTS.tolvan.accountId, psuAis),
      'account balances',
    );
    const balances = await gateway.client.accounts.balances(ACCOUNTS.tolvan.accountId, psuAis);
    assert.equal(balances.status, 200, 'the bank answers again: so does the gateway');
  });

  test('stopped (the connection refused): an initiation and an account read answer 503 with Retry-After', async () => {
    const goneCore = httpCoreBanking({ url: await stoppedOrigin(), ...ADAPTER });
    const other = await sibling(gateway, { coreBanking: () => goneCore });
    try {
      assertUnavailable(await other.client.initiate(token, { path: PATH, body: domestic() }), 'initiation');
      const aisToken = await other.client.clientCredentialsToken('AIS');
      const consent = await other.client.createConsent(aisToken);
      const psuAis = (await other.client.authorizeScope(`AIS:${consent.body.consentId}`)).access_token;
      assertUnavailable(
        await other.client.accounts.details(ACCOUNTS.tolvan.accountId, psuAis, { withBalance: true }),
        'an account with its balances',
      );
    } finally {
      await other.close();
      goneCore.close();
    }
  });
});
