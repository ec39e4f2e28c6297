// The permission dashboard's login at the bank's OpenID Connect provider (issue 39), against
// node-oidc-provider itself (test/stand-ins/oidc-provider.ts): over HTTP with a cookie jar (Agent),
// and in Chromium. The PSU the provider names sees their consents and withdraws one; a callback from
// another browser, a replay, a stranger the bank does not know and an aborted login get no session.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { BrowserContext } from 'playwright-core';
import { openIdPsuLogin } from '../../src/adapters/openid-psu-login.ts';
import { TEST_PSU_PASSWORD } from '../../src/sandbox/seed.ts';
import { chromiumMissing, openBrowser } from '../helpers/browser.ts';
import { rowsOf } from '../helpers/dashboard.ts';
import { backends, type Gateway, startGateway } from '../helpers/gateway.ts';
import { Agent, PROVIDER_ACCOUNTS, settingsOf } from '../helpers/oidc.ts';
import { type StandInProvider, startOidcProvider } from '../stand-ins/oidc-provider.ts';

const skip = chromiumMissing();

for (const backend of backends()) {
  describe(`the dashboard's login at the bank's OpenID Connect provider (${backend})`, () => {
    let provider: StandInProvider;
    let gateway: Gateway;
    let browser: { context: BrowserContext; close: () => Promise<void> } | undefined;
    before(async () => {
      provider = await startOidcProvider(PROVIDER_ACCOUNTS);
      gateway = await startGateway({
        backend,
        psuIdentityProvider: await openIdPsuLogin(settingsOf(provider)),
      });
      await provider.registerClient(
        `${gateway.url}/psu/oidc/callback`,
        `${gateway.url}/psu/dashboard/oidc/callback`,
      );
    });
    after(async () => {
      await browser?.close();
      await gateway?.close();
      await provider?.close();
    });

    const atCallback = (url: URL) => url.href.startsWith(`${gateway.url}/psu/dashboard/oidc/callback`);

    /** The browser from the dashboard to the provider's login page. */
    async function toProviderLogin(agent: Agent): Promise<URL> {
      const opened = await agent.fetch(new URL(`${gateway.url}/psu/dashboard`));
      assert.equal(opened.status, 302);
      assert.equal(opened.headers.get('cache-control'), 'no-store');
      assert.match(
        opened.headers.get('set-cookie')!,
        /^psu_dashboard_oidc=[A-Za-z0-9_-]{43}; Path=\/psu\/dashboard\/oidc; HttpOnly; SameSite=Lax; Max-Age=300$/,
      );
      assert.ok(opened.headers.get('location')!.startsWith(provider.issuer), 'to the provider');
      const landed = await agent.go(opened.headers.get('location')!);
      assert.match(landed.answer!.text, /<h1>Bank login<\/h1>/);
      return landed.url;
    }

    /**
     * An account consent the sandbox's test PSU approved (the sandbox answers the redirect flow's code
     * at once; the dashboard's login goes to the provider all the same).
     */
    async function consentId(): Promise<string> {
      const { client } = gateway;
      const created = await client.createConsent(await client.clientCredentialsToken('AIS'));
      assert.equal(created.status, 201, JSON.stringify(created.body));
      await client.authorizeScope(`AIS:${created.body.consentId}`);
      return created.body.consentId;
    }

    test('log in at the provider: the callback answers the dashboard of the PSU it names, with a session', async () => {
      const id = await consentId();
      const agent = new Agent();
      const loginPage = await toProviderLogin(agent);
      const back = await agent.go(loginPage, { form: { account: 'tolvan' }, stop: atCallback });
      const answer = await agent.fetch(back.url);
      assert.equal(answer.status, 200, answer.text);
      assert.match(
        answer.headers.get('set-cookie')!,
        /psu_session=[A-Za-z0-9_-]{43}; Path=\/psu\/dashboard; HttpOnly; SameSite=Strict/,
      );
      assert.match(answer.text, /Logged in as <strong data-field="psu">191212121212<\/strong>/);
      assert.ok(
        rowsOf(answer.text, 'consent').some((row) => row.id === id),
        'the consent is listed',
      );
      // The session goes on without the provider; the callback cannot be used twice.
      const again = await agent.fetch(new URL(`${gateway.url}/psu/dashboard`));
      assert.equal(again.status, 200);
      assert.match(again.text, /Logged in as <strong data-field="psu">191212121212<\/strong>/);
      const replay = await agent.fetch(back.url);
      assert.equal(replay.status, 400);
      assert.match(replay.text, /<h1>This page is no longer valid<\/h1>/);
    });

    test("the built-in login's form is refused where the provider is the login", async () => {
      // A form as the built-in login page would post it, its CSRF token its cookie's.
      const csrf = 'a'.repeat(43);
      const answer = await fetch(`${gateway.url}/psu/dashboard/login`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: `psu_csrf=${csrf}` },
        body: new URLSearchParams({ csrf, psu_id: '191212121212', password: TEST_PSU_PASSWORD }).toString(),
      });
      assert.equal(answer.status, 400);
      assert.equal(answer.headers.get('set-cookie'), null);
    });

    test('another browser, a stranger and an aborted login get no session', async () => {
      const agent = new Agent();
      const back = await agent.go(await toProviderLogin(agent), {
        form: { account: 'tolvan' },
        stop: atCallback,
      });
      // The callback URL in another browser (without the first one's cookie): no session, and the
      // first browser can still use it.
      const foreign = await new Agent().fetch(back.url);
      assert.equal(foreign.status, 400);
      assert.equal(foreign.headers.get('set-cookie'), null);
      assert.equal((await agent.fetch(back.url)).status, 200);

      const stranger = new Agent();
      const strangerBack = await stranger.go(await toProviderLogin(stranger), {
        form: { account: 'stranger' },
        stop: atCallback,
      });
      const refused = await stranger.fetch(strangerBack.url);
      assert.equal(refused.status, 401);
      assert.match(refused.text, /<h1>Not logged in<\/h1>/);
      assert.equal(stranger.cookie('psu_session'), undefined);

      const quitter = new Agent();
      const aborted = await quitter.go(`${(await toProviderLogin(quitter)).href}/abort`, {
        form: {},
        stop: atCallback,
      });
      const quit = await quitter.fetch(aborted.url);
      assert.equal(quit.status, 401);
      assert.equal(quitter.cookie('psu_session'), undefined);
    });

    test('in Chromium: the provider, back on the dashboard, withdraw by clicking', { skip }, async () => {
      const id = await consentId();
      browser = await openBrowser();
      const page = await browser.context.newPage();
      await page.goto(`${gateway.url}/psu/dashboard`);
      await page.waitForSelector('text=Bank login');
      await page.fill('#account', 'tolvan');
      await Promise.all([page.waitForSelector('text=Logged in as'), page.click('#sign-in')]);
      const consent = page.locator(`[data-consent="${id}"]`);
      assert.equal(await consent.locator('[data-field=tpp]').textContent(), 'Sandbox app');
      await Promise.all([
        page.waitForURL('**/psu/dashboard?notice=withdrawn'),
        consent.locator('button').click(),
      ]);
      assert.equal(await page.locator(`[data-consent="${id}"]`).count(), 0);
      assert.match((await page.textContent('[data-field=notice]'))!, /The consent is withdrawn/);
      await page.close();
    });
  });
}
