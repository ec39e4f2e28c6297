// The bank's core banking system down while the PSU logs in and approves (issue 37): a gateway in live
// mode whose core banking system and customers are the HTTP adapter against the stand-in bank
// (test/stand-ins/core-banking.ts), scripted to answer 5xx on every attempt of the next call. The PSU's
// pages answer a whole 503 page with Retry-After, never the API's JSON or a 500, and the page stays
// valid: once the bank answers again, the same login and the same approval complete and the TPP gets
// its code. After the bank's OpenID Connect provider (test/stand-ins/oidc-provider.ts) sent the PSU
// back, the provider's code is spent: the TPP hears temporarily_unavailable, with its state, and a new
// authorization succeeds.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  type HttpCoreBanking,
  httpCoreBanking,
} from '../../src/adapters/http-core-banking/http-core-banking.ts';
import { openIdPsuLogin } from '../../src/adapters/openid-psu-login.ts';
import { renderPage } from '../../src/api/psu/pages.ts';
import { TEST_PSU_PASSWORD } from '../../src/sandbox/seed.ts';
import { type Gateway, startGateway } from '../helpers/gateway.ts';
import { type Answer, call } from '../helpers/http.ts';
import { Agent, PROVIDER_ACCOUNTS, queryOf, settingsOf } from '../helpers/oidc.ts';
import { domestic } from '../helpers/payments.ts';
import { codeParameters, openAuthorize, type PageState, post, redirectQuery } from '../helpers/psu-pages.ts';
import { type CoreBankingStandIn, startCoreBankingStandIn } from '../stand-ins/core-banking.ts';
import { type StandInProvider, startOidcProvider } from '../stand-ins/oidc-provider.ts';

const PRODUCT = 'handelsbanken-domestic-credit-transfer';
const ADAPTER = { timeoutMs: 300, retry: { attempts: 2, baseDelayMs: 10, maxDelayMs: 20 } };
const LOGIN = { psu_id: '191212121212', password: TEST_PSU_PASSWORD };

/** A message page, whole, with the headers a PSU's answer carries (Retry-After where it is a 503). */
function assertMessagePage(answer: Answer, expected: { status: number; title: string; text: string }) {
  const { status, title, text } = expected;
  assert.deepEqual(
    {
      status: answer.status,
      retryAfter: answer.headers['retry-after'],
      type: answer.headers['content-type'],
      cache: answer.headers['cache-control'],
      body: answer.body,
    },
    {
      status,
      retryAfter: status === 503 ? '5' : undefined,
      type: 'text/html; charset=utf-8',
      cache: 'no-store',
      body: renderPage({ view: 'message', title, text }, undefined, ''),
    },
    title,
  );
}

/** The page the PSU sees while the bank's core banking system is away. */
const assertUnavailablePage = (answer: Answer) =>
  assertMessagePage(answer, {
    status: 503,
    title: 'Temporarily unavailable',
    text: "The bank's core banking system cannot answer right now. Please try again in a few minutes.",
  });

async function fetched(url: URL | string, agent: Agent, form?: Record<string, string>): Promise<Answer> {
  const answer = await agent.fetch(new URL(url), form);
  return { status: answer.status, headers: Object.fromEntries(answer.headers), body: answer.text };
}

describe('the core banking system down while the PSU logs in and approves', () => {
  let bank: CoreBankingStandIn;
  let core: HttpCoreBanking;
  let provider: StandInProvider;
  let gateway: Gateway;
  let withProvider: Gateway;

  before(async () => {
    bank = await startCoreBankingStandIn();
    core = httpCoreBanking({ url: bank.url, ...ADAPTER });
    provider = await startOidcProvider(PROVIDER_ACCOUNTS);
    const systems = { coreBanking: core, customers: core.customers };
    gateway = await startGateway({ systems, config: { mode: 'live' } });
    withProvider = await startGateway({
      systems,
      psuIdentityProvider: await openIdPsuLogin(settingsOf(provider)),
      config: { mode: 'live' },
    });
    await provider.registerClient(`${withProvider.url}/psu/oidc/callback`);
  });
  after(async () => {
    await withProvider?.close();
    await gateway?.close();
    core?.close();
    await provider?.close();
    await bank?.close();
  });

  /** The bank answers 5xx to every attempt of the gateway's next call to it, then answers again. */
  const bankFailsNextCall = () =>
    bank.script({ kind: 'fail-before', status: 503 }, ADAPTER.retry.attempts, 'all');

  async function payment(on: Gateway): Promise<string> {
    const initiated = await on.client.initiate(await on.client.clientCredentialsToken(), {
      path: `/psd2/se/v2/payments/private/single/${PRODUCT}`,
      body: domestic(),
    });
    assert.equal(initiated.status, 200, JSON.stringify(initiated.body));
    return initiated.body.paymentId;
  }

  async function assertCodeExecutes(on: Gateway, id: string, approved: PageState | Record<string, string>) {
    const query = 'answer' in approved ? redirectQuery(approved as PageState) : approved;
    assert.deepEqual(Object.keys(query).sort(), ['code', 'state'], JSON.stringify(query));
    const token = await on.client.exchangeCode(`PIS:${id}`, query.code!);
    assert.equal(token.status, 200, JSON.stringify(token.body));
    const executed = await on.client.execute(PRODUCT, id, token.body.access_token);
    assert.deepEqual([executed.status, executed.body], [200, { paymentId: id, transactionStatus: 'ACCC' }]);
  }

  test('login and approval: a 503 page while the bank is away, then the same pages complete', async () => {
    const id = await payment(gateway);
    const login = await openAuthorize(gateway, codeParameters(gateway.sandboxApp, `PIS:${id}`, 'down-1'));
    assert.equal(login.answer.status, 200, login.html);

    bankFailsNextCall();
    assertUnavailablePage((await post(gateway, '/psu/login', login, LOGIN)).answer);
    const consent = await post(gateway, '/psu/login', login, LOGIN);
    assert.equal(consent.answer.status, 200, consent.html);
    assert.match(consent.html, /data-field="amount">/);

    bankFailsNextCall();
    const during = await post(gateway, '/psu/consent', consent, { decision: 'approve' });
    assertUnavailablePage(during.answer);
    const approved = await post(gateway, '/psu/consent', consent, { decision: 'approve' });
    assert.equal(approved.answer.status, 302, approved.html);
    assert.equal(redirectQuery(approved).state, 'down-1');
    await assertCodeExecutes(gateway, id, approved);
  });

  test('a form field given twice on a PSU page: a 400 page, not the API JSON', async () => {
    const login = await openAuthorize(
      gateway,
      codeParameters(gateway.sandboxApp, `PIS:${await payment(gateway)}`, 'twice'),
    );
    const answer = await call(gateway.app, 'POST', '/psu/login', {
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        cookie: `psu_csrf=${login.cookie}`,
      },
      payload: `request=${login.form!.request}&csrf=${login.form!.csrf}&psu_id=1&psu_id=2&password=x`,
    });
    assertMessagePage(answer, {
      status: 400,
      title: 'This form cannot be read',
      text: 'It was sent with a field given twice. Go back to the app you came from and start again.',
    });
    const fine = await post(gateway, '/psu/login', login, LOGIN);
    assert.equal(fine.answer.status, 200, 'the page stays valid');
  });

  test("the provider's callback: temporarily_unavailable at the TPP with its state; a new authorization completes", async () => {
    const atCallback = (url: URL) => url.href.startsWith(`${withProvider.url}/psu/oidc/callback`);
    const atTpp = (url: URL) => url.href.startsWith(withProvider.client.redirectUri);
    /** The PSU logs in at the provider; answers the callback URL it sends the browser back to. */
    async function backFromProvider(agent: Agent, id: string, state: string): Promise<URL> {
      const landed = await agent.go(withProvider.client.authorizationUrl(`PIS:${id}`, state));
      assert.equal(landed.answer?.status, 200, landed.answer?.text);
      const back = await agent.go(landed.url, { form: { account: 'tolvan' }, stop: atCallback });
      assert.equal(back.answer, undefined, back.answer?.text);
      return back.url;
    }

    const id = await payment(withProvider);
    const agent = new Agent();
    const callback = await backFromProvider(agent, id, 'oidc-down');
    bankFailsNextCall();
    const during = await fetched(callback, agent);
    assert.equal(during.status, 302, String(during.body));
    assert.deepEqual(queryOf(new URL(String(during.headers.location))), {
      error: 'temporarily_unavailable',
      error_description: "The bank's core banking system did not answer",
      state: 'oidc-down',
    });
    assert.ok(
      atTpp(new URL(String(during.headers.location))),
      "the PSU is sent back to the TPP's redirect URI",
    );

    const again = new Agent();
    const consent = await fetched(await backFromProvider(again, id, 'oidc-again'), again);
    assert.equal(consent.status, 200, String(consent.body));
    const form = (name: string) =>
      new RegExp(`name="${name}" value="([^"]*)"`).exec(String(consent.body))?.[1] ?? '';
    bankFailsNextCall();
    const fields = { request: form('request'), csrf: form('csrf'), decision: 'approve' };
    assertUnavailablePage(await fetched(`${withProvider.url}/psu/consent`, again, fields));
    const approved = await fetched(`${withProvider.url}/psu/consent`, again, fields);
    assert.equal(approved.status, 302, String(approved.body));
    const query = queryOf(new URL(String(approved.headers.location)));
    assert.equal(query.state, 'oidc-again');
    await assertCodeExecutes(withProvider, id, query);
  });
});
