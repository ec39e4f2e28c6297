// Debian's Chromium driven by playwright-core (never a downloaded browser), with a fresh profile.
// Suites skip, saying so, where /usr/bin/chromium is missing.
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';

export function chromiumMissing(): string | false {
  if (existsSync(CHROMIUM)) return false;
  const reason = `browser suites skipped: ${CHROMIUM} is not installed (apt-get install chromium)`;
  console.log(`# ${reason}`);
  return reason;
}

/** A TPP's redirect target on loopback: it answers every request with a short page. */
export async function startTppServer(): Promise<{ url: string; close: () => Promise<void> }> {
  const server = createServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/plain' }).end('TPP callback');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

export async function openBrowser(): Promise<{ context: BrowserContext; close: () => Promise<void> }> {
  const profile = await mkdtemp(join(tmpdir(), 'psd2-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  return {
    context,
    close: async () => {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}
