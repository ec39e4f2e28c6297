// The sandbox page in Chromium: it renders (headings, tables) with no console error and nothing its
// Content-Security-Policy refused; a copy button puts its command on the clipboard; a screenshot is a
// real picture of a page; and a phone-sized window does not scroll sideways.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { BrowserContext, Page } from 'playwright-core';
import type { SandboxTestData } from '../../src/api/sandbox/schemas.ts';
import { walkthrough } from '../../src/api/sandbox/walkthrough/walkthrough.ts';
import { TEST_ACCOUNTS, TEST_PSUS } from '../../src/sandbox/test-data.ts';
import { chromiumMissing, openBrowser } from '../helpers/browser.ts';
import { type Gateway, startGateway } from '../helpers/gateway.ts';

const skip = chromiumMissing();

declare global {
  interface Window {
    violations: string[];
  }
}

describe('the sandbox page in Chromium', { skip }, () => {
  let gateway: Gateway;
  let browser: { context: BrowserContext; close: () => Promise<void> };
  let data: SandboxTestData;
  before(async () => {
    gateway = await startGateway();
    browser = await openBrowser();
    await browser.context.grantPermissions(['clipboard-read', 'clipboard-write'], {
      origin: new URL(gateway.url).origin,
    });
    data = (await (await fetch(`${gateway.url}/sandbox/test-data`)).json()) as SandboxTestData;
  });
  after(async () => {
    await browser?.close();
    await gateway?.close();
  });

  /** The page, with what the console and the Content-Security-Policy reported while it loaded. */
  async function openPage(width = 1280, height = 900) {
    const page = await browser.context.newPage();
    await page.setViewportSize({ width, height });
    const errors: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error' || message.type() === 'warning') errors.push(message.text());
    });
    page.on('pageerror', (error) => errors.push(error.message));
    // Runs before the page's own script, outside its policy: records every violation.
    await page.addInitScript(() => {
      window.violations = [];
      document.addEventListener('securitypolicyviolation', (event) =>
        window.violations.push(`${event.violatedDirective} ${event.blockedURI}`),
      );
    });
    const response = await page.goto(`${gateway.url}/sandbox`);
    assert.equal(response?.status(), 200);
    return { page, errors, violations: () => page.evaluate(() => window.violations) };
  }

  test('renders its headings and tables, with no console error and no policy violation', async () => {
    const { page, errors, violations } = await openPage();
    assert.equal(await page.title(), 'psd2-gateway sandbox');
    assert.equal(await page.textContent('h1'), 'psd2-gateway sandbox');
    assert.deepEqual(await page.locator('h2').allTextContents(), [
      'Try it with curl and jq',
      'Test PSUs',
      'Accounts',
      'Card accounts and cards',
      'Creditors at other banks',
      'Scenarios',
    ]);
    const tables = page.locator('table');
    assert.equal(await tables.count(), 6);
    for (const table of await tables.all()) assert.ok(await table.isVisible(), 'every table is visible');
    assert.equal(await tables.nth(0).locator('tbody tr').count(), TEST_PSUS.length);
    assert.equal(await tables.nth(1).locator('tbody tr').count(), TEST_ACCOUNTS.length);
    assert.equal(await page.textContent('[data-field=client-id]'), gateway.sandboxApp.clientId);
    // The script ran: it shows the copy buttons it serves.
    assert.ok(
      await page.locator('button[data-copy=cmd-token]').isVisible(),
      'the token command has its copy button',
    );
    assert.deepEqual(errors, []);
    assert.deepEqual(await violations(), []);

    // The policy holds and is watched: a script the page did not ship is refused, and reported.
    await page.evaluate(() => {
      const script = document.createElement('script');
      script.textContent = 'document.title = "injected"';
      document.body.append(script);
    });
    assert.equal(await page.title(), 'psd2-gateway sandbox');
    assert.match((await violations()).join('\n'), /script-src/);
    await page.close();
  });

  test('a copy button copies its command; another copies them all', async () => {
    const { page, errors } = await openPage();
    const steps = walkthrough(gateway.url, data).flatMap((section) => section.steps);
    const token = steps.find((step) => step.id === 'token')!;
    const button = page.locator('button[data-copy=cmd-token]');
    await button.click();
    await page.waitForFunction(
      () => document.querySelector('button[data-copy=cmd-token]')?.textContent === 'Copied',
    );
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), token.command);
    assert.equal(await page.textContent('#cmd-token'), token.command);

    await page.click('button[data-copy=all]');
    await page.waitForFunction(
      () => document.querySelector('button[data-copy=all]')?.textContent === 'Copied',
    );
    assert.equal(
      await page.evaluate(() => navigator.clipboard.readText()),
      steps.map((step) => step.command).join('\n\n'),
    );
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('a screenshot is a picture of a page: a PNG of the window, in many colours', async () => {
    const { page } = await openPage(1280, 900);
    const png = await page.screenshot();
    await page.close();
    assert.deepEqual([...png.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], 'PNG');
    assert.equal(png.toString('latin1', 12, 16), 'IHDR');
    assert.deepEqual([png.readUInt32BE(16), png.readUInt32BE(20)], [1280, 900]);
    assert.ok(png.length > 30_000, `${png.length} bytes`);
    const picture = await pixelsOf(png);
    assert.deepEqual([picture.width, picture.height], [1280, 900]);
    assert.ok(picture.colours > 100, `${picture.colours} colours`);
    // The background fills most, but text, the facts card and the dark command blocks the rest.
    assert.ok(picture.commonest < 0.9, `the commonest colour covers ${picture.commonest}`);
    assert.ok(picture.dark > 0.01, `dark pixels ${picture.dark}`);
  });

  test('on a phone-sized window the page does not scroll sideways; commands and tables scroll in their boxes', async () => {
    const { page, errors } = await openPage(390, 844);
    const [scrollWidth, innerWidth] = await page.evaluate(() => [
      document.documentElement.scrollWidth,
      window.innerWidth,
    ]);
    assert.ok(scrollWidth <= innerWidth, `${scrollWidth} > ${innerWidth}`);
    assert.deepEqual(errors, []);
    await page.close();
  });

  /** Decodes the PNG in a blank page (no policy there) and counts its colours. */
  async function pixelsOf(png: Buffer) {
    const blank: Page = await browser.context.newPage();
    try {
      return await blank.evaluate(async (base64) => {
        const image = new Image();
        image.src = `data:image/png;base64,${base64}`;
        await image.decode();
        const canvas = document.createElement('canvas');
        canvas.width = image.width;
        canvas.height = image.height;
        const context = canvas.getContext('2d')!;
        context.drawImage(image, 0, 0);
        const pixels = context.getImageData(0, 0, image.width, image.height).data;
        const counts = new Map<number, number>();
        let dark = 0;
        for (let i = 0; i < pixels.length; i += 4) {
          const colour = (pixels[i]! << 16) | (pixels[i + 1]! << 8) | pixels[i + 2]!;
          counts.set(colour, (counts.get(colour) ?? 0) + 1);
          if (pixels[i]! + pixels[i + 1]! + pixels[i + 2]! < 150) dark++;
        }
        const total = pixels.length / 4;
        return {
          width: image.width,
          height: image.height,
          colours: counts.size,
          commonest: Math.max(...counts.values()) / total,
          dark: dark / total,
        };
      }, png.toString('base64'));
    } finally {
      await blank.close();
    }
  }
});
