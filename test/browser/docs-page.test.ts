// The docs page (/docs, Swagger UI) in Chromium: it loads every asset from the gateway itself (no CDN,
// nothing else on the network), shows every operation of /openapi.json grouped by tag, and "Try it
// out" takes a payment through as a TPP developer would: token, initiate, authorize, exchange, execute,
// status, each from what the page fills in (the sandbox's app) and what the answer before it showed.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { BrowserContext, Locator, Page } from 'playwright-core';
import { defaultRedirectUri } from '../../src/sandbox/seed.ts';
import { updateRedirectUri } from '../../src/store/apps-repository.ts';
import { chromiumMissing, openBrowser } from '../helpers/browser.ts';
import { type Gateway, startGateway } from '../helpers/gateway.ts';

const skip = chromiumMissing();

describe('the docs page in Chromium', { skip }, () => {
  let gateway: Gateway;
  let browser: { context: BrowserContext; close: () => Promise<void> };
  let operations: number;
  let sandbox: { clientId: string; redirectUri: string };
  before(async () => {
    gateway = await startGateway();
    // The sandbox app as a started sandbox seeds it (no SANDBOX_REDIRECT_URI): redirected to the
    // gateway's own callback page, at the origin it listens at.
    const callback = defaultRedirectUri(gateway.config, new URL(gateway.url).origin);
    await updateRedirectUri(gateway.store.db, gateway.sandboxApp.clientId, callback);
    sandbox = ((await (await fetch(`${gateway.url}/sandbox/test-data`)).json()) as { app: typeof sandbox })
      .app;
    assert.deepEqual(sandbox, { clientId: gateway.sandboxApp.clientId, redirectUri: callback });
    browser = await openBrowser();
    const document = (await (await fetch(`${gateway.url}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, unknown>>;
      webhooks: Record<string, Record<string, unknown>>;
    };
    // The page shows the webhooks (the status notification a TPP receives) as operations too.
    operations = [...Object.values(document.paths), ...Object.values(document.webhooks)].reduce(
      (sum, item) => sum + Object.keys(item).length,
      0,
    );
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
    await page.locator('.opblock').first().waitFor({ timeout: 60_000 });
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

  test('"Try it out" takes a payment through, step by step, with what the page fills in', async () => {
    const page = await browser.context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    const forms: string[] = [];
    page.on('request', (request) => {
      if (request.url().includes('/oauth2/token/')) forms.push(request.postData() ?? '');
    });
    await page.goto(`${gateway.url}/docs`);
    await page.locator('.opblock').first().waitFor({ timeout: 60_000 });
    // What a TPP developer reads on the sandbox page first: the app.
    const { clientId, redirectUri } = sandbox;

    // 1. A client-credentials token: the form is filled in, its other fields empty and not sent.
    const token = await open(page, 'OAuth', 'getToken');
    assert.deepEqual(await formValues(token), {
      grant_type: 'client_credentials',
      client_id: clientId,
      scope: 'PIS',
      code: '',
      redirect_uri: '',
      refresh_token: '',
    });
    const clientToken = await execute(token, 200);
    assert.deepEqual([clientToken.token_type, clientToken.expires_in], ['Bearer', 86400]);
    assert.deepEqual(forms, [`grant_type=client_credentials&client_id=${clientId}&scope=PIS`]);
    await authorizeWith(page, String(clientToken.access_token));

    // 2. Initiate the Sweden v2 example: a domestic payment the sandbox executes.
    const initiate = await open(page, 'Payments', 'initiateSeV2Payment');
    assert.equal(await parameter(initiate, 'X-Gateway-Client-Id').inputValue(), clientId);
    const initiated = await execute(initiate, 200);
    assert.equal(initiated.transactionStatus, 'ACTC');
    const paymentId = String(initiated.paymentId);
    assert.match(paymentId, /^\S{8,}$/);

    // 3. Authorize: the sandbox approves at once; the browser follows the redirect to the sandbox's
    // callback page, which shows the code.
    const authorize = await open(page, 'OAuth', 'authorize');
    assert.equal(await parameter(authorize, 'client_id').inputValue(), clientId);
    assert.equal(await parameter(authorize, 'redirect_uri').inputValue(), redirectUri);
    assert.equal(await parameter(authorize, 'response_type').inputValue(), 'code');
    const state = await parameter(authorize, 'state').inputValue();
    assert.match(state, /^[0-9a-f]{16}$/);
    await parameter(authorize, 'scope').fill(`PIS:${paymentId}`);
    const landed = await execute(authorize, 200);
    assert.equal(landed.state, state);
    const code = String(landed.code);
    assert.match(code, /^\S{16,}$/);

    // 4. The code for the PSU's token, on the redirect flow's token path.
    const exchange = await open(page, 'OAuth', 'getTokenRedirect');
    assert.deepEqual(await formValues(exchange), {
      grant_type: 'authorization_code',
      client_id: clientId,
      scope: '',
      code: '',
      redirect_uri: redirectUri,
      refresh_token: '',
    });
    await formField(exchange, 'scope').fill(`PIS:${paymentId}`);
    await formField(exchange, 'code').fill(code);
    const psuToken = await execute(exchange, 200);
    assert.equal(psuToken.token_type, 'Bearer');
    assert.equal(
      forms[1],
      new URLSearchParams({
        grant_type: 'authorization_code',
        client_id: clientId,
        scope: `PIS:${paymentId}`,
        code,
        redirect_uri: redirectUri,
      }).toString(),
    );
    await authorizeWith(page, String(psuToken.access_token));

    // 5. Execute with the PSU's token; 6. read the status. Within the bank: credited, ACCC (API-NOTES).
    const executePayment = await open(page, 'Payments', 'executePaymentSeV2');
    await parameter(executePayment, 'paymentId').fill(paymentId);
    assert.deepEqual(await execute(executePayment, 200), { paymentId, transactionStatus: 'ACCC' });
    const status = await open(page, 'Payments', 'getPaymentStatusSeV2');
    await parameter(status, 'paymentId').fill(paymentId);
    assert.deepEqual(await execute(status, 200), { paymentId, transactionStatus: 'ACCC' });
    assert.deepEqual(errors, []);
    await page.close();
  });
});

/** An operation of the page, opened (the page opens operations ready to try: tryItOutEnabled). */
async function open(page: Page, tag: string, operationId: string): Promise<Locator> {
  const operation = page.locator(`#operations-${tag.replaceAll(' ', '_')}-${operationId}`);
  await operation.locator('.opblock-summary').click();
  await operation.locator('button.execute').waitFor({ timeout: 10_000 });
  return operation;
}

const parameter = (operation: Locator, name: string) =>
  operation.locator(`tr[data-param-name="${name}"] input[type="text"]`);
const formField = (operation: Locator, name: string) =>
  operation.locator(`tr[data-property-name="${name}"] input[type="text"]`);

async function formValues(operation: Locator): Promise<Record<string, string>> {
  const values: Record<string, string> = {};
  for (const name of ['grant_type', 'client_id', 'scope', 'code', 'redirect_uri', 'refresh_token'])
    values[name] = await formField(operation, name).inputValue();
  return values;
}

/** Presses Execute; asserts the status the page shows and answers the body it shows. */
async function execute(operation: Locator, status: number): Promise<Record<string, unknown>> {
  await operation.locator('button.execute').click();
  const shown = operation.locator('.live-responses-table .response .response-col_status').first();
  await shown.waitFor({ timeout: 20_000 });
  const body = (await operation.locator('.live-responses-table .microlight').first().textContent()) ?? '';
  assert.equal((await shown.textContent())?.trim(), String(status), body);
  return JSON.parse(body) as Record<string, unknown>;
}

/** The page's Authorize dialog: the bearer token every later call sends (typed in, as a user would). */
async function authorizeWith(page: Page, token: string): Promise<void> {
  await page.locator('.scheme-container button.authorize').click();
  const dialog = page.locator('.dialog-ux .modal-ux');
  const logout = dialog.locator('button', { hasText: 'Logout' });
  if ((await logout.count()) > 0) await logout.first().click();
  await dialog.locator('input').first().fill(token);
  await dialog.locator('button.modal-btn.auth.authorize').first().click();
  await dialog.locator('button.btn-done').first().click();
}
