// The PSU's permission dashboard in a real browser (issue 39): the sandbox's test PSU logs in with the
// built-in login, sees the consent and the future-dated payment a TPP holds, withdraws the consent and
// cancels the payment by clicking, and sees the result; the TPP then reads CONSENT_INVALID and CANC.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { BrowserContext } from 'playwright-core';
import { addDays } from '../../src/domain/dates.ts';
import { TEST_PSU_PASSWORD } from '../../src/sandbox/seed.ts';
import { chromiumMissing, openBrowser } from '../helpers/browser.ts';
import { bankDate, type Gateway, startGateway } from '../helpers/gateway.ts';
import { UNAUTHORIZED } from '../helpers/http.ts';
import { domestic } from '../helpers/payments.ts';

const skip = chromiumMissing();
const DOMESTIC = 'handelsbanken-domestic-credit-transfer';

describe("the PSU's permission dashboard in Chromium", { skip }, () => {
  let gateway: Gateway;
  let browser: { context: BrowserContext; close: () => Promise<void> };
  before(async () => {
    gateway = await startGateway();
    browser = await openBrowser();
  });
  after(async () => {
    await browser?.close();
    await gateway?.close();
  });

  test('log in, see the consent and the future-dated payment, withdraw and cancel by clicking', async () => {
    const { client } = gateway;
    const created = await client.createConsent(await client.clientCredentialsToken('AIS'));
    const consentId = created.body.consentId;
    const tokens = await client.authorizeScope(`AIS:${consentId}`);
    const date = addDays(bankDate(), 3);
    const initiated = await client.initiate(await client.clientCredentialsToken(), {
      path: `/psd2/se/v2/payments/private/single/${DOMESTIC}`,
      body: domestic({ requestedExecutionDate: date, creditor: { name: 'Agda Andersson' } }),
    });
    const { paymentId } = initiated.body;
    assert.equal((await client.authorizeAndExecute(DOMESTIC, paymentId)).body.transactionStatus, 'ACCP');

    const page = await browser.context.newPage();
    await page.goto(`${gateway.url}/psu/dashboard`);
    assert.equal(await page.title(), 'Your permissions');
    await page.fill('#psu_id', '191212121212');
    await page.fill('#password', TEST_PSU_PASSWORD);
    await Promise.all([page.waitForSelector('text=Logged in as'), page.click('button[type=submit]')]);
    const consent = page.locator(`[data-consent="${consentId}"]`);
    assert.equal(await consent.locator('[data-field=tpp]').textContent(), 'Sandbox app');
    assert.equal(await consent.locator('[data-field=last-access]').textContent(), 'Not yet');
    const payment = page.locator(`[data-payment="${paymentId}"]`);
    assert.equal(await payment.locator('[data-field=amount]').textContent(), '125.50 SEK');
    assert.equal(await payment.locator('[data-field=creditor]').textContent(), 'Agda Andersson');
    assert.equal(await payment.locator('[data-field=date]').textContent(), date);
    assert.equal(await payment.locator('[data-field=tpp]').textContent(), 'Sandbox app');

    await Promise.all([
      page.waitForURL('**/psu/dashboard?notice=withdrawn'),
      consent.locator('button').click(),
    ]);
    assert.equal(
      await page.textContent('[data-field=notice]'),
      'The consent is withdrawn: the provider can no longer read your accounts with it.',
    );
    assert.equal(await page.locator(`[data-consent="${consentId}"]`).count(), 0);
    const read = await client.read('/psd2/v1/accounts', tokens.access_token);
    assert.deepEqual(
      { status: read.status, body: read.body },
      UNAUTHORIZED({ code: 'CONSENT_INVALID', text: 'The consent was revoked by the PSU' }),
    );

    await Promise.all([
      page.waitForURL('**/psu/dashboard?notice=cancelled'),
      page.locator(`[data-payment="${paymentId}"] button`).click(),
    ]);
    assert.equal(
      await page.textContent('[data-field=notice]'),
      'The payment is cancelled: it will not be made.',
    );
    assert.equal(await page.locator(`[data-payment="${paymentId}"]`).count(), 0);
    const status = await client.status(DOMESTIC, paymentId, await client.clientCredentialsToken(), 'SE');
    assert.deepEqual(status.body, { paymentId, transactionStatus: 'CANC' });
    await page.close();
  });
});
