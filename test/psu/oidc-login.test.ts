// The live redirect flow's login at the bank's OpenID Connect provider (PSU_OIDC_*), end to end against
// node-oidc-provider itself (test/stand-ins/oidc-provider.ts): in Chromium, and over HTTP with a cookie
// jar for what a browser cannot be made to do (foreign callbacks, replays, a provider that went away).
// The built-in login stays the default. On PGlite and PostgreSQL.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import SwaggerParser from '@apidevtools/swagger-parser';
import type { TppClient } from '@psd2-gateway/client';
import type { BrowserContext } from 'playwright-core';
import { openIdPsuLogin } from '../../src/adapters/openid-psu-login.ts';
import { chromiumMissing, openBrowser, startTppServer } from '../helpers/browser.ts';
import { backends, type Gateway, manualClock, sibling, startGateway } from '../helpers/gateway.ts';
import { Agent, PROVIDER_ACCOUNTS, queryOf, settingsOf } from '../helpers/oidc.ts';
import { ACCOUNTS, domestic } from '../helpers/payments.ts';
import { type StandInProvider, startOidcProvider } from '../stand-ins/oidc-provider.ts';

const PRODUCT = 'handelsbanken-domestic-credit-transfer';
/** The hidden fields of our consent page. */
function formOf(html: string): { request: string; csrf: string } {
  const field = (name: string) => new RegExp(`name="${name}" value="([^"]*)"`).exec(html)?.[1];
  const request = field('request');
  const csrf = field('csrf');
  assert.ok(request !== undefined && csrf !== undefined, `no consent form in ${html}`);
  return { request, csrf };
}

type Operation = {
  operationId?: string;
  summary?: string;
  tags?: string[];
  responses: Record<string, { content?: Record<string, unknown>; headers?: Record<string, unknown> }>;
};

for (const backend of backends()) {
  describe(`PSU login at the bank's OpenID Connect provider, over HTTP (${backend})`, () => {
    const time = manualClock();
    let provider: StandInProvider;
    let gateway: Gateway;
    let client: TppClient;
    before(async () => {
      provider = await startOidcProvider(PROVIDER_ACCOUNTS);
      gateway = await startGateway({
        backend,
        clock: time.clock,
        psuIdentityProvider: await openIdPsuLogin(settingsOf(provider)),
        config: { mode: 'live' },
      });
      await provider.registerClient(`${gateway.url}/psu/oidc/callback`);
      client = gateway.client;
    });
    after(async () => {
      await gateway?.close();
      await provider?.close();
    });

    const atTpp = (url: URL) => url.href.startsWith(client.redirectUri);
    const atCallback = (url: URL) => url.href.startsWith(`${gateway.url}/psu/oidc/callback`);

    async function payment(tpp = client): Promise<string> {
      const initiated = await tpp.initiate(await tpp.clientCredentialsToken(), {
        path: `/psd2/se/v2/payments/private/single/${PRODUCT}`,
        body: domestic({ creditor: { name: 'Agda <Andersson>' } }),
      });
      assert.equal(initiated.status, 200, JSON.stringify(initiated.body));
      return initiated.body.paymentId;
    }

    /** The PSU's browser from the TPP's authorize link to the provider's login page. */
    async function toProviderLogin(agent: Agent, id: string, tpp = client) {
      const landed = await agent.go(tpp.authorizationUrl(`PIS:${id}`, 'oidc-state'));
      assert.equal(landed.answer?.status, 200, landed.answer?.text);
      assert.match(landed.answer!.text, /<h1>Bank login<\/h1>/);
      return landed.url;
    }

    /** Logs in at the provider as `account`, and follows the way back up to `stop`. */
    function logIn(agent: Agent, loginPage: URL, account: string, stop = atTpp) {
      return agent.go(loginPage, { form: { account }, stop });
    }

    async function tppAnswer(account: string): Promise<Record<string, string>> {
      const agent = new Agent();
      const back = await logIn(agent, await toProviderLogin(agent, await payment()), account);
      assert.equal(back.answer, undefined, back.answer?.text);
      return queryOf(back.url);
    }

    test('authorize, the provider, our consent page with amount and payee, approve: a code that executes', async () => {
      const id = await payment();
      const agent = new Agent();
      const authorize = await agent.fetch(new URL(client.authorizationUrl(`PIS:${id}`, 'oidc-state')));
      assert.equal(authorize.status, 302);
      assert.equal(authorize.headers.get('cache-control'), 'no-store');
      const start = authorize.headers.get('location')!;
      assert.match(start, /^\/psu\/oidc\/start\?login=[A-Za-z0-9_-]{43}$/);

      const sent = await agent.fetch(new URL(start, gateway.url));
      assert.equal(sent.status, 302);
      assert.match(
        sent.headers.get('set-cookie')!,
        /^psu_oidc=[A-Za-z0-9_-]{43}; Path=\/psu\/oidc; HttpOnly; SameSite=Lax; Max-Age=900$/,
      );
      const toProvider = new URL(sent.headers.get('location')!);
      assert.equal(`${toProvider.origin}${toProvider.pathname}`, `${provider.issuer}/auth`);
      const sentQuery = queryOf(toProvider);
      assert.deepEqual(Object.keys(sentQuery).sort(), [
        'client_id',
        'code_challenge',
        'code_challenge_method',
        'nonce',
        'prompt',
        'redirect_uri',
        'response_type',
        'scope',
        'state',
      ]);
      assert.deepEqual(
        [sentQuery.client_id, sentQuery.redirect_uri, sentQuery.response_type, sentQuery.scope],
        [provider.clientId, `${gateway.url}/psu/oidc/callback`, 'code', 'openid'],
      );
      assert.deepEqual([sentQuery.code_challenge_method, sentQuery.prompt], ['S256', 'login']);
      assert.notEqual(sentQuery.state, sentQuery.nonce);

      const loginPage = await agent.go(toProvider);
      assert.equal(loginPage.answer?.status, 200);
      const back = await logIn(agent, loginPage.url, 'tolvan', atCallback);
      const callbackQuery = queryOf(back.url);
      assert.deepEqual(Object.keys(callbackQuery).sort(), ['code', 'iss', 'state']);
      assert.deepEqual([callbackQuery.state, callbackQuery.iss], [sentQuery.state, provider.issuer]);

      const consent = await agent.fetch(back.url);
      assert.equal(consent.status, 200, consent.text);
      assert.equal(consent.headers.get('cache-control'), 'no-store');
      assert.match(
        consent.headers.get('set-cookie')!,
        /^psu_csrf=[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Strict; Max-Age=900$/,
      );
      assert.match(consent.text, /Approve this payment\?/);
      assert.match(consent.text, /data-field="amount">125\.50 SEK</);
      assert.match(consent.text, /data-field="creditor">Agda &lt;Andersson&gt;</, 'escaped');
      assert.match(consent.text, new RegExp(`data-field="creditor-account">${ACCOUNTS.agda.bban}<`));
      assert.match(consent.text, /data-field="debtor-account">SE/);

      const approved = await agent.go(`${gateway.url}/psu/consent`, {
        form: { ...formOf(consent.text), decision: 'approve' },
        stop: atTpp,
      });
      const answer = queryOf(approved.url);
      assert.deepEqual(Object.keys(answer).sort(), ['code', 'state']);
      assert.equal(answer.state, 'oidc-state');
      const token = await client.exchangeCode(`PIS:${id}`, answer.code!);
      assert.equal(token.status, 200, JSON.stringify(token.body));
      const psuToken = token.body.access_token;
      assert.deepEqual(token.body, { access_token: psuToken, expires_in: 900, token_type: 'Bearer' });
      const executed = await client.execute(PRODUCT, id, psuToken);
      assert.deepEqual([executed.status, executed.body], [200, { paymentId: id, transactionStatus: 'ACCC' }]);
      const status = await client.status(PRODUCT, id, await client.clientCredentialsToken(), 'SE');
      assert.deepEqual([status.status, status.body], [200, { paymentId: id, transactionStatus: 'ACCC' }]);
      const again = await client.exchangeCode(`PIS:${id}`, answer.code!);
      assert.equal(again.status, 400, 'a code is used once');
    });

    test('cancel at the provider: access_denied and the state at the TPP, the payment not authorized', async () => {
      const id = await payment();
      const agent = new Agent();
      const loginPage = await toProviderLogin(agent, id);
      const back = await agent.go(`${loginPage.href}/abort`, { form: {}, stop: atTpp });
      assert.deepEqual(queryOf(back.url), {
        error: 'access_denied',
        error_description: 'the PSU did not log in',
        state: 'oidc-state',
      });
      const status = await client.status(PRODUCT, id, await client.clientCredentialsToken(), 'SE');
      assert.deepEqual([status.status, status.body], [200, { paymentId: id, transactionStatus: 'ACTC' }]);
    });

    test('an unknown state, no cookie or another browser: the invalid page, and the PSU can still go on', async () => {
      const agent = new Agent();
      const loginPage = await toProviderLogin(agent, await payment());
      const back = await logIn(agent, loginPage, 'tolvan', atCallback);
      const invalid = async (url: URL, cookie?: string) => {
        const answer = await fetch(url, {
          redirect: 'manual',
          headers: cookie === undefined ? {} : { cookie },
        });
        assert.equal(answer.status, 400);
        assert.equal(answer.headers.get('location'), null);
        assert.match(await answer.text(), /This page is no longer valid/);
      };
      const unknown = new URL(back.url);
      unknown.searchParams.set('state', 'x'.repeat(43));
      await invalid(unknown, `psu_oidc=${agent.cookie('psu_oidc')}`);
      await invalid(back.url);
      await invalid(back.url, `psu_oidc=${'y'.repeat(43)}`);
      const noState = new URL(back.url);
      noState.searchParams.delete('state');
      await invalid(noState, `psu_oidc=${agent.cookie('psu_oidc')}`);

      const consent = await agent.fetch(back.url);
      assert.equal(consent.status, 200, consent.text);
      assert.match(consent.text, /Approve this payment\?/);
      const replayed = await agent.fetch(back.url);
      assert.equal(replayed.status, 400, 'the state is taken once');
      assert.match(replayed.text, /This page is no longer valid/);
    });

    test('the start link is single-use', async () => {
      const agent = new Agent();
      const id = await payment();
      const start = (await agent.fetch(new URL(client.authorizationUrl(`PIS:${id}`, 's')))).headers.get(
        'location',
      )!;
      assert.equal((await agent.fetch(new URL(start, gateway.url))).status, 302);
      const again = await agent.fetch(new URL(start, gateway.url));
      assert.equal(again.status, 400);
      assert.match(again.text, /This page is no longer valid/);
      const none = await agent.fetch(new URL('/psu/oidc/start', gateway.url));
      assert.equal(none.status, 400);
    });

    test('a PSU the directory does not know: access_denied at the TPP', async () => {
      assert.deepEqual(await tppAnswer('stranger'), {
        error: 'access_denied',
        error_description: 'the PSU cannot authorize this',
        state: 'oidc-state',
      });
    });

    test('a PSU who does not hold the debtor account: access_denied at the TPP', async () => {
      assert.deepEqual(await tppAnswer('agda'), {
        error: 'access_denied',
        error_description: 'the PSU does not hold the debtor account',
        state: 'oidc-state',
      });
    });

    test('no id claim in the ID token nor in userinfo: access_denied at the TPP', async () => {
      assert.deepEqual(await tppAnswer('nameless'), {
        error: 'access_denied',
        error_description: 'the login at the bank could not be verified',
        state: 'oidc-state',
      });
    });

    test('the id claim only in userinfo names the PSU', async () => {
      const id = await payment();
      const agent = new Agent();
      const back = await logIn(agent, await toProviderLogin(agent, id), 'userinfo-tolvan');
      assert.equal(back.answer?.status, 200, back.answer?.text);
      const approved = await agent.go(`${gateway.url}/psu/consent`, {
        form: { ...formOf(back.answer!.text), decision: 'approve' },
        stop: atTpp,
      });
      const code = queryOf(approved.url).code!;
      const token = await client.exchangeCode(`PIS:${id}`, code);
      const executed = await client.execute(PRODUCT, id, token.body.access_token);
      assert.deepEqual([executed.status, executed.body], [200, { paymentId: id, transactionStatus: 'ACCC' }]);
    });

    test('a tampered code fails the exchange at the provider: access_denied, and no second try', async () => {
      const agent = new Agent();
      const back = await logIn(agent, await toProviderLogin(agent, await payment()), 'tolvan', atCallback);
      const tampered = new URL(back.url);
      const code = tampered.searchParams.get('code')!;
      tampered.searchParams.set('code', `${code.slice(0, -1)}${code.endsWith('A') ? 'B' : 'A'}`);
      const refused = await agent.go(tampered, { stop: atTpp });
      assert.deepEqual(queryOf(refused.url), {
        error: 'access_denied',
        error_description: 'the login at the bank could not be verified',
        state: 'oidc-state',
      });
      const genuine = await agent.fetch(back.url);
      assert.equal(genuine.status, 400, 'the state was taken by the tampered return');
    });

    test('an idle login expires: access_denied at the TPP', async () => {
      const agent = new Agent();
      const back = await logIn(agent, await toProviderLogin(agent, await payment()), 'tolvan', atCallback);
      time.advance(5 * 60_000 + 1);
      const late = await agent.go(back.url, { stop: atTpp });
      assert.deepEqual(queryOf(late.url), {
        error: 'access_denied',
        error_description: 'the authorization page expired',
        state: 'oidc-state',
      });
    });

    test('the provider does not answer at the callback: temporarily_unavailable at the TPP', async () => {
      const gone = await startOidcProvider(PROVIDER_ACCOUNTS);
      const other = await sibling(gateway, {
        clock: time.clock,
        psuIdentityProvider: await openIdPsuLogin(settingsOf(gone), { timeoutSeconds: 2 }),
        config: { mode: 'live' },
      });
      try {
        await gone.registerClient(`${other.url}/psu/oidc/callback`);
        const agent = new Agent();
        const loginPage = await toProviderLogin(agent, await payment(other.client), other.client);
        const back = await logIn(agent, loginPage, 'tolvan', (url) =>
          url.href.startsWith(`${other.url}/psu/oidc/callback`),
        );
        gone.stopAnswering();
        const answer = await agent.go(back.url, { stop: atTpp });
        assert.deepEqual(queryOf(answer.url), {
          error: 'temporarily_unavailable',
          error_description: "the bank's login did not answer",
          state: 'oidc-state',
        });
      } finally {
        await other.close();
        await gone.close();
      }
    });

    test('the provider down when the PSU is sent there: a page that says so (503, Retry-After); the same link works once it is back', async () => {
      const gone = await startOidcProvider(PROVIDER_ACCOUNTS);
      const other = await sibling(gateway, {
        clock: time.clock,
        psuIdentityProvider: await openIdPsuLogin(settingsOf(gone), { timeoutSeconds: 2 }),
        config: { mode: 'live' },
      });
      try {
        const agent = new Agent();
        const id = await payment(other.client);
        const authorize = await agent.fetch(
          new URL(other.client.authorizationUrl(`PIS:${id}`, 'oidc-state')),
        );
        const start = new URL(authorize.headers.get('location')!, other.url);
        gone.stopAnswering();
        const away = await agent.fetch(start);
        assert.deepEqual(
          {
            status: away.status,
            type: away.headers.get('content-type'),
            retryAfter: away.headers.get('retry-after'),
            cookie: away.headers.get('set-cookie'),
            title: /<h1>([^<]*)<\/h1><p>([^<]*)<\/p>/.exec(away.text)?.slice(1),
          },
          {
            status: 503,
            type: 'text/html; charset=utf-8',
            retryAfter: '5',
            cookie: null,
            title: [
              'Temporarily unavailable',
              'The bank&#39;s login cannot answer right now. Please try again in a few minutes.',
            ],
          },
        );
        // The provider back (on another port, as a restarted one may be): the same start link goes on.
        const back = await startOidcProvider(PROVIDER_ACCOUNTS);
        try {
          const again = await sibling(gateway, {
            clock: time.clock,
            psuIdentityProvider: await openIdPsuLogin(settingsOf(back), { timeoutSeconds: 2 }),
            config: { mode: 'live' },
          });
          try {
            const sent = await agent.fetch(new URL(`${start.pathname}${start.search}`, again.url));
            assert.equal(sent.status, 302);
            assert.ok(sent.headers.get('location')!.startsWith(`${back.issuer}/auth?`), 'to the provider');
          } finally {
            await again.close();
          }
        } finally {
          await back.close();
        }
      } finally {
        await other.close();
        await gone.close();
      }
    });

    test('the OpenAPI document describes the two routes, and every served route is documented', async () => {
      const document = (await (await fetch(`${gateway.url}/openapi.json`)).json()) as {
        paths: Record<string, Record<string, Operation>>;
      };
      await SwaggerParser.validate(structuredClone(document) as never);
      const described = (path: string) => {
        const operation = document.paths[path]?.get;
        return {
          operationId: operation?.operationId,
          tags: operation?.tags,
          summary: typeof operation?.summary,
          responses: Object.fromEntries(
            Object.entries(operation?.responses ?? {}).map(([status, answer]) => [
              status,
              Object.keys(answer.content ?? answer.headers ?? {}),
            ]),
          ),
        };
      };
      const html = ['text/html'];
      assert.deepEqual(described('/psu/oidc/start'), {
        operationId: 'psuOidcStart',
        tags: ['PSU pages'],
        summary: 'string',
        responses: { 302: ['Location'], 400: html, 503: html },
      });
      assert.deepEqual(described('/psu/oidc/callback'), {
        operationId: 'psuOidcCallback',
        tags: ['PSU pages'],
        summary: 'string',
        responses: { 200: html, 302: ['Location'], 400: html, 503: html },
      });
      const documented = Object.entries(document.paths).flatMap(([path, item]) =>
        Object.keys(item)
          .filter((method) => ['get', 'put', 'post', 'delete', 'patch'].includes(method))
          .map((method) => `${method.toUpperCase()} ${path}`),
      );
      const served = gateway.routes
        .filter((route) => !route.startsWith('HEAD ') && !/^GET \/docs(\/.*)?$/.test(route))
        .map((route) => route.replace(/:([A-Za-z]+)/g, '{$1}').replace(/\*$/, '{*}'));
      assert.deepEqual(documented.sort(), [...new Set(served)].sort());
    });
  });

  describe(`PSU login at the bank's OpenID Connect provider, in Chromium (${backend})`, {
    skip: chromiumMissing(),
  }, () => {
    let provider: StandInProvider;
    let gateway: Gateway;
    let tpp: { url: string; close: () => Promise<void> };
    let client: TppClient;
    let browser: { context: BrowserContext; close: () => Promise<void> };
    before(async () => {
      // Another site than the gateway's (127.0.0.1), as the bank's provider is: the psu_oidc cookie
      // must come back on a cross-site redirect.
      provider = await startOidcProvider(PROVIDER_ACCOUNTS, { hostName: 'localhost' });
      gateway = await startGateway({
        backend,
        psuIdentityProvider: await openIdPsuLogin(settingsOf(provider)),
        config: { mode: 'live' },
      });
      await provider.registerClient(`${gateway.url}/psu/oidc/callback`);
      tpp = await startTppServer();
      client = await gateway.addApp('Budget Buddy', `${tpp.url}/callback`);
      browser = await openBrowser();
    });
    after(async () => {
      await browser?.close();
      await tpp?.close();
      await gateway?.close();
      await provider?.close();
    });

    async function providerPage() {
      const initiated = await client.initiate(await client.clientCredentialsToken(), {
        path: `/psd2/se/v2/payments/private/single/${PRODUCT}`,
        body: domestic({ creditor: { name: 'Agda Andersson' } }),
      });
      const paymentId = initiated.body.paymentId;
      const page = await browser.context.newPage();
      await page.goto(client.authorizationUrl(`PIS:${paymentId}`, 'browser-state'));
      assert.equal(new URL(page.url()).origin, provider.issuer);
      assert.equal(await page.title(), 'Bank login');
      return { page, paymentId };
    }

    test("log in at the bank's provider, see amount and payee, approve: the code executes the payment", async () => {
      const { page, paymentId } = await providerPage();
      await page.fill('#account', 'tolvan');
      await page.click('#sign-in');
      await page.waitForSelector('text=Approve this payment?');
      assert.equal(new URL(page.url()).pathname, '/psu/oidc/callback');
      assert.match((await page.textContent('.who'))!, /Budget Buddy/);
      assert.equal(await page.textContent('[data-field=amount]'), '125.50 SEK');
      assert.equal(await page.textContent('[data-field=creditor]'), 'Agda Andersson');
      assert.equal(await page.textContent('[data-field=creditor-account]'), ACCOUNTS.agda.bban);
      const [cookie] = await browser.context
        .cookies(`${gateway.url}/psu/oidc/callback`)
        .then((all) => all.filter((c) => c.name === 'psu_oidc'));
      assert.deepEqual([cookie?.httpOnly, cookie?.sameSite, cookie?.path], [true, 'Lax', '/psu/oidc']);
      await Promise.all([page.waitForURL(`${tpp.url}/**`), page.click('button[value=approve]')]);
      const landed = new URL(page.url());
      assert.deepEqual([...landed.searchParams.keys()].sort(), ['code', 'state']);
      assert.equal(landed.searchParams.get('state'), 'browser-state');
      const token = await client.exchangeCode(`PIS:${paymentId}`, landed.searchParams.get('code')!);
      assert.equal(token.status, 200, JSON.stringify(token.body));
      const executed = await client.execute(PRODUCT, paymentId, token.body.access_token);
      assert.deepEqual([executed.status, executed.body], [200, { paymentId, transactionStatus: 'ACCC' }]);
      await page.close();
    });

    test('cancel at the provider: the TPP gets access_denied with its state', async () => {
      const { page } = await providerPage();
      await Promise.all([page.waitForURL(`${tpp.url}/**`), page.click('#cancel')]);
      assert.deepEqual(Object.fromEntries(new URL(page.url()).searchParams), {
        error: 'access_denied',
        error_description: 'the PSU did not log in',
        state: 'browser-state',
      });
      await page.close();
    });
  });
}

test('without a provider the built-in login stays: our login page, and no /psu/oidc routes', async () => {
  const gateway = await startGateway({ config: { mode: 'live' } });
  try {
    const id = (
      await gateway.client.initiate(await gateway.client.clientCredentialsToken(), {
        path: `/psd2/se/v2/payments/private/single/${PRODUCT}`,
        body: domestic(),
      })
    ).body.paymentId;
    const login = await fetch(gateway.client.authorizationUrl(`PIS:${id}`, 's'), { redirect: 'manual' });
    assert.equal(login.status, 200);
    assert.match(await login.text(), /<title>Log in<\/title>/);
    assert.deepEqual(
      gateway.routes.filter((route) => route.includes('/psu/oidc')),
      [],
    );
    assert.equal((await fetch(`${gateway.url}/psu/oidc/start?login=x`)).status, 404);
  } finally {
    await gateway.close();
  }
});
