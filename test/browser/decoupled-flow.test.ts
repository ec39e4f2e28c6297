// The live decoupled flow with the PSU in a real browser on the simulator's e-ID app (/psu/eid),
// while the test polls the token URL as a TPP would: the PSU identifies with personal number and
// password, then sees what the order signs and signs or cancels; the QR code alone shows and signs nothing.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { TppClient } from '@psd2-gateway/client';
import type { BrowserContext, Page } from 'playwright-core';
import { TEST_PSU_PASSWORD } from '../../src/sandbox/seed.ts';
import { chromiumMissing, openBrowser } from '../helpers/browser.ts';
import { type InitAnswer, initDecoupled, postLink } from '../helpers/decoupled.ts';
import { type Gateway, startGateway } from '../helpers/gateway.ts';
import { otherBank } from '../helpers/payments.ts';

const skip = chromiumMissing();
const PRODUCT = 'other-bank-domestic-credit-transfer';
const TOLVAN = '191212121212';
const LIVE_NOTICE =
  "e-ID simulator, not the bank's e-ID: it identifies you by personal number and password alone. This gateway runs it for trying live without the bank's e-ID only.";

/** The PSU identifies on the identify page. */
async function identify(page: Page, psuId = TOLVAN, password = TEST_PSU_PASSWORD) {
  await page.fill('#psu_id', psuId);
  await page.fill('#password', password);
  await page.click('button[type=submit]');
}

/** The PSU identifies, then presses Sign or Cancel on the order's page. */
async function identifyAnd(page: Page, decision: 'approve' | 'decline') {
  await identify(page);
  await page.click(`button[value=${decision}]`);
}

describe('decoupled flow with the e-ID app in Chromium', { skip }, () => {
  let gateway: Gateway;
  let browser: { context: BrowserContext; close: () => Promise<void> };
  let client: TppClient;
  let token: string;
  before(async () => {
    gateway = await startGateway({ config: { mode: 'live' } });
    client = gateway.client;
    token = await client.clientCredentialsToken();
    browser = await openBrowser();
  });
  after(async () => {
    await browser?.close();
    await gateway?.close();
  });

  async function start(sameDevice: boolean): Promise<{ paymentId: string; init: InitAnswer }> {
    const initiated = await client.initiate(token, {
      path: `/psd2/se/v2/payments/private/single/${PRODUCT}`,
      body: otherBank(),
    });
    const paymentId = initiated.body.paymentId;
    const answer = await initDecoupled(gateway, {
      client_id: client.clientId,
      scope: `PIS:${paymentId}`,
      psu_client_ip: '198.51.100.7',
      bisa_same_device: sameDevice,
    });
    assert.equal(answer.status, 200);
    return { paymentId, init: answer.body as InitAnswer };
  }

  async function openInApp(input: string) {
    const page = await browser.context.newPage();
    await page.goto(`${gateway.url}/psu/eid`);
    assert.equal(await page.textContent('[data-field=simulator-notice]'), LIVE_NOTICE);
    await page.fill('#input', input);
    await page.click('button[type=submit]');
    return page;
  }

  test('other device: the PSU scans the QR code, sees amount and payee, identifies, signs; the TPP gets COMPLETE', async () => {
    const { paymentId, init } = await start(false);
    const page = await openInApp(init.qr_code!);
    assert.equal(await page.textContent('h1'), 'Identify');
    assert.equal(await page.$('[data-field=visible-text]'), null);
    await identify(page);
    assert.equal(
      await page.textContent('[data-field=visible-text]'),
      'Pay 99.90 SEK to Sven Svensson (50001234501)',
    );
    assert.equal(await page.textContent('[data-field=simulator-notice]'), LIVE_NOTICE);
    await page.click('button[value=approve]');
    assert.equal(await page.textContent('h1'), 'Signed');
    assert.equal(await page.textContent('[data-field=simulator-notice]'), LIVE_NOTICE);
    const polled = await postLink(gateway, init._links.token.href);
    const body = polled.body as { result: string; access_token: string };
    assert.deepEqual([polled.status, body.result], [200, 'COMPLETE']);
    const executed = await client.execute(PRODUCT, paymentId, body.access_token);
    assert.deepEqual([executed.status, executed.body], [200, { paymentId, transactionStatus: 'ACSC' }]);
    await page.close();
  });

  test('same device: the PSU opens the auto-start token, identifies and declines; the TPP gets USER_CANCEL', async () => {
    const { init } = await start(true);
    const page = await openInApp(init.auto_start_token!);
    await identifyAnd(page, 'decline');
    assert.equal(await page.textContent('h1'), 'Cancelled');
    const polled = await postLink(gateway, init._links.token.href);
    assert.deepEqual([polled.status, polled.body], [200, { result: 'USER_CANCEL' }]);
    await page.close();
  });

  test('by personal number; a forged QR code opens nothing', async () => {
    const { init } = await start(false);
    const forged = init.qr_code!.replace(/[0-9a-f]{64}$/, '0'.repeat(64));
    const wrong = await openInApp(forged);
    assert.equal(
      await wrong.textContent('[role=alert]'),
      'No identification is waiting for that personal number or code.',
    );
    await wrong.close();
    const page = await openInApp(TOLVAN);
    assert.equal(await page.$('[data-field=visible-text]'), null);
    await identify(page);
    assert.match((await page.textContent('[data-field=visible-text]'))!, /^Pay 99\.90 SEK to Sven Svensson/);
    await page.click('button[value=approve]');
    const polled = await postLink(gateway, init._links.token.href);
    assert.equal((polled.body as { result: string }).result, 'COMPLETE');
    await page.close();
  });

  test('the QR code pasted by someone else: no password, a wrong one, or their own shows and signs nothing', async () => {
    const { init } = await start(false);
    const page = await openInApp(init.qr_code!);
    // The browser asks for both fields before it posts.
    await page.click('button[type=submit]');
    assert.equal(await page.textContent('h1'), 'Identify');
    assert.equal(await page.$('[role=alert]'), null);
    await identify(page, TOLVAN, 'guess');
    assert.equal(
      await page.textContent('[role=alert]'),
      'The personal number or the password is wrong. Nothing was signed.',
    );
    await identify(page, '198112289874');
    assert.equal(
      await page.textContent('[role=alert]'),
      'This identification is for another person: you cannot sign or cancel it.',
    );
    assert.equal(await page.$('[data-field=visible-text]'), null);
    const polled = await postLink(gateway, init._links.token.href);
    const body = polled.body as { result: string; qr_code: string };
    assert.deepEqual(
      [polled.status, polled.body],
      [200, { result: 'IN_PROGRESS', sleep_time: 2000, qr_code: body.qr_code }],
    );
    await identifyAnd(page, 'approve');
    assert.equal(await page.textContent('h1'), 'Signed');
    await page.close();
  });
});
