// The docs page (/docs, Swagger UI) in Chromium: it loads every asset from the gateway itself (no CDN,
// nothing else on the network), shows every operation of /openapi.json grouped by tag, and "Try it
// out" on the client-credentials token call reaches the gateway and shows its answer.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { BrowserContext } from 'playwright-core';
import { chromiumMissing, openBrowser } from '../helpers/browser.ts';
import { type Gateway, startGateway } from '../helpers/gateway.ts';

const skip = chromiumMissing();

describe('the docs page in Chromium', { skip }, () => {
  let gateway: Gateway;
  let browser: { context: BrowserContext; close: () => Promise<void> };
  let operations: number;
  before(async () => {
    gateway = await startGateway();
    browser = await openBrowser();
    const document = (await (await fetch(`${gateway.url}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, unknown>>;
    };
    operations = Object.values(document.paths).reduce((sum, item) => sum + Object.keys(item).length, 0);
  });
  after(async () => {
    await browser?.close();
    await gateway?.close();
  });

  test('shows every operation, from assets the gateway serves itself', async () => {
    const page = await browser.context.newPage();
    const requested: string[] = [];
    const errors: string[] = [];
    page.on('request', (request) => requested.push(request.url()));
    page.on('pageerror', (error) => errors.push(error.message));
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(message.text());
    });
    const response = await page.goto(`${gateway.url}/docs`);
    assert.equal(response?.status(), 200);
    await page.locator('.opblock').first().waitFor({ timeout: 20_000 });
    assert.equal(await page.locator('.opblock').count(), operations);
    assert.match((await page.locator('.title').first().textContent()) ?? '', /psd2-gateway \(sandbox\)/);
    for (const tag of ['OAuth', 'Payments', 'Signing baskets', 'Accounts', 'Sandbox']) {
      assert.equal(await page.locator(`.opblock-tag[data-tag="${tag}"]`).count(), 1, tag);
    }
    const origin = new URL(gateway.url).origin;
    const elsewhere = requested.filter((url) => !url.startsWith(origin) && !url.startsWith('data:'));
    assert.deepEqual(elsewhere, []);
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('"Try it out" on the token call reaches the gateway and shows the token', async () => {
    const page = await browser.context.newPage();
    await page.goto(`${gateway.url}/docs#/OAuth/getToken`);
    const operation = page.locator('#operations-OAuth-getToken');
    await operation.locator('.opblock-summary').waitFor({ timeout: 20_000 });
    if (!(await operation.locator('.opblock-body').isVisible()))
      await operation.locator('.opblock-summary').click();
    // The page opens operations ready to try (tryItOutEnabled).
    // The form's fields, one per parameter: those left empty are not sent.
    const fields = { grant_type: 'client_credentials', scope: 'PIS', client_id: gateway.sandboxApp.clientId };
    for (const name of ['grant_type', 'client_id', 'scope', 'code', 'redirect_uri', 'refresh_token']) {
      const input = operation.locator(`tr[data-property-name="${name}"] input[type="text"]`);
      await input.fill(fields[name as keyof typeof fields] ?? '');
    }
    await operation.locator('button.execute').click();
    const status = operation.locator('.live-responses-table .response .response-col_status').first();
    await status.waitFor({ timeout: 20_000 });
    assert.equal((await status.textContent())?.trim(), '200');
    const shown = (await operation.locator('.live-responses-table .microlight').first().textContent()) ?? '';
    const token = JSON.parse(shown) as { token_type: string; expires_in: number; access_token: string };
    assert.deepEqual([token.token_type, token.expires_in], ['Bearer', 86400]);
    assert.match(token.access_token, /^\S{20,}$/);
    await page.close();
  });
});
