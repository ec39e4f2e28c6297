// The live redirect flow in a real browser: log in, see amount and payee, approve or deny, five wrong
// passwords, a tampered CSRF token.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { TppClient } from '@psd2-gateway/client';
import type { BrowserContext, Page } from 'playwright-core';
import { TEST_PSU_PASSWORD } from '../../src/sandbox/seed.ts';
import { chromiumMissing, openBrowser, startTppServer } from '../helpers/browser.ts';
import { type Gateway, startGateway } from '../helpers/gateway.ts';
import { otherBank } from '../helpers/payments.ts';

const skip = chromiumMissing();
const PRODUCT = 'other-bank-domestic-credit-transfer';

describe('PSU pages in Chromium', { skip }, () => {
  let gateway: Gateway;
  let browser: { context: BrowserContext; close: () => Promise<void> };
  let tpp: { url: string; close: () => Promise<void> };
  let client: TppClient;
  let token: string;
  before(async () => {
    gateway = await startGateway({ config: { mode: 'live' } });
    tpp = await startTppServer();
    client = await gateway.addApp('Budget Buddy', `${tpp.url}/callback`);
    token = await client.clientCredentialsToken();
    browser = await openBrowser();
  });
  after(async () => {
    await browser?.close();
    await tpp?.close();
    await gateway?.close();
  });

  async function authorizePage(psuAccount?: string): Promise<{ page: Page; paymentId: string }> {
    const body = otherBank(
      psuAccount === undefined ? {} : { debtorAccount: { value: psuAccount, accountType: 'BBAN' } },
    );
    const initiated = await client.initiate(token, {
      path: `/psd2/se/v2/payments/private/single/${PRODUCT}`,
      body,
    });
    const paymentId = initiated.body.paymentId;
    const query = new URLSearchParams({
      response_type: 'code',
      scope: `PIS:${paymentId}`,
      client_id: client.clientId,
      state: 'browser-state',
      redirect_uri: client.redirectUri,
    });
    const page = await browser.context.newPage();
    await page.goto(`${gateway.url}/oauth2/authorize/1.0?${query}`);
    return { page, paymentId };
  }

  async function logIn(page: Page, psuId: string, password: string) {
    await page.fill('#psu_id', psuId);
    await page.fill('#password', password);
    await page.click('button[type=submit]');
  }

  test('log in, see amount and payee, approve: the code at the TPP executes the payment', async () => {
    const { page, paymentId } = await authorizePage();
    assert.equal(await page.title(), 'Log in');
    assert.match((await page.textContent('.who'))!, /Budget Buddy/);
    await logIn(page, '191212121212', TEST_PSU_PASSWORD);
    await page.waitForSelector('text=Approve this payment?');
    assert.equal(await page.textContent('[data-field=amount]'), '99.90 SEK');
    assert.equal(await page.textContent('[data-field=creditor]'), 'Sven Svensson');
    assert.equal(await page.textContent('[data-field=creditor-account]'), '50001234501');
    await Promise.all([page.waitForURL(`${tpp.url}/**`), page.click('button[value=approve]')]);
    const landed = new URL(page.url());
    assert.equal(landed.searchParams.get('state'), 'browser-state');
    const code = landed.searchParams.get('code')!;
    const psuToken = await client.exchangeCode(`PIS:${paymentId}`, code);
    const executed = await client.execute(PRODUCT, paymentId, psuToken.body.access_token);
    assert.deepEqual([executed.status, executed.body], [200, { paymentId, transactionStatus: 'ACSC' }]);
    await page.close();
  });

  test('deny: the TPP gets access_denied', async () => {
    const { page } = await authorizePage();
    await logIn(page, '191212121212', TEST_PSU_PASSWORD);
    await Promise.all([page.waitForURL(`${tpp.url}/**`), page.click('button[value=deny]')]);
    const landed = new URL(page.url());
    assert.deepEqual(Object.fromEntries(landed.searchParams), {
      error: 'access_denied',
      error_description: 'the PSU denied the authorization',
      state: 'browser-state',
    });
    await page.close();
  });

  test('five wrong passwords lock the PSU', async () => {
    const second = await authorizePage('6789555555550');
    for (let attempt = 1; attempt <= 4; attempt++) {
      await logIn(second.page, '198112289874', `wrong-${attempt}`);
      assert.equal(await second.page.textContent('[role=alert]'), 'The PSU id or the password is wrong.');
    }
    await logIn(second.page, '198112289874', 'wrong-5');
    assert.match((await second.page.textContent('[role=alert]'))!, /Too many failed attempts/);
    await logIn(second.page, '198112289874', TEST_PSU_PASSWORD);
    assert.match((await second.page.textContent('[role=alert]'))!, /Too many failed attempts/);
    await second.page.close();
  });

  test('a tampered CSRF token is refused', async () => {
    const { page } = await authorizePage();
    await page.evaluate(() => {
      const input = document.querySelector<HTMLInputElement>('input[name=csrf]')!;
      input.value = `${input.value.slice(0, -1)}${input.value.endsWith('A') ? 'B' : 'A'}`;
    });
    await logIn(page, '191212121212', TEST_PSU_PASSWORD);
    assert.equal(await page.textContent('h1'), 'This page is no longer valid');
    await page.close();
  });
});
