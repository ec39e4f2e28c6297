// Every route names its limits in its own pipeline (api/shared/pipeline.ts), no hook adds them: this
// holds each kind of route to the order the hook used to give, so that a new API route cannot forget
// them. An API route (its headers name X-Gateway-Client-Id) counts per address first and per app last of
// onRequest; the authorization routes per address in onRequest and per app first of preValidation; the
// PSU's password pages per address; each of them documents its 429.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import pino from 'pino';
import { buildApp } from '../../src/app.ts';
import { configWith } from '../../src/config.ts';
import { ensureSandboxApp } from '../../src/sandbox/seed.ts';
import { openTestStore, REDIRECT_URI, type TestStore } from '../helpers/gateway.ts';

interface SeenRoute {
  readonly method: string | readonly string[];
  readonly url: string;
  readonly onRequest?: unknown;
  readonly preValidation?: unknown;
  readonly schema?: { readonly headers?: unknown; readonly response?: Record<string, unknown> };
}

const names = (hooks: unknown) => [hooks ?? []].flat().map((hook) => (hook as { name?: string }).name ?? '');

const AUTHORIZATION = /\/(oauth2\/(token|authorize)|decoupled)\//;
const PASSWORD_PAGES = ['/psu/login', '/psu/eid/identify', '/psu/dashboard/login'];

let store: TestStore;
const routes: SeenRoute[] = [];
before(async () => {
  store = await openTestStore('pglite');
  const config = configWith({
    logLevel: 'silent',
    sandboxRedirectUri: REDIRECT_URI,
    sandboxClientId: 'route-pipelines',
    schedulerIntervalMs: 0,
  });
  await ensureSandboxApp(store.db, config);
  const app = await buildApp({
    config,
    store,
    logger: pino({ level: 'silent' }),
    // The options object is the route's own: it holds the hooks as they are registered.
    onRoute: (route) => routes.push(route as SeenRoute),
  });
  await app.ready();
  await app.close();
});
after(() => store.close());

function namesClientId(route: SeenRoute): boolean {
  const headers = route.schema?.headers as { properties?: Record<string, unknown> } | undefined;
  return Object.keys(headers?.properties ?? {}).some((name) => name.toLowerCase() === 'x-gateway-client-id');
}

test('each limited route names its limits where the kind of route wants them, and documents its 429', () => {
  const misplaced: string[] = [];
  let api = 0;
  let authorization = 0;
  let pages = 0;
  for (const route of routes) {
    const name = `${[route.method].flat().join(',')} ${route.url}`;
    const early = names(route.onRequest);
    const late = names(route.preValidation);
    const documented = route.schema?.response?.['429'] !== undefined;
    if (namesClientId(route)) {
      api += 1;
      const ok = early[0] === 'rateLimit' && early.at(-1) === 'rateLimit' && early.length > 2;
      if (!ok || !documented) misplaced.push(`${name}: ${early.join(', ')}`);
    } else if (AUTHORIZATION.test(route.url)) {
      authorization += 1;
      const ok = early.join() === 'rateLimit' && late[0] === 'rateLimit';
      if (!ok || !documented) misplaced.push(`${name}: ${early.join(', ')} | ${late.join(', ')}`);
    } else if (PASSWORD_PAGES.some((page) => route.url.endsWith(page))) {
      pages += 1;
      if (early.join() !== 'rateLimit' || !documented) misplaced.push(`${name}: ${early.join(', ')}`);
    } else if ([...early, ...late].includes('rateLimit')) {
      misplaced.push(`${name} is limited but is no limited kind`);
    }
  }
  assert.deepEqual(misplaced, []);
  assert.ok(api > 40, `the API's routes were found (${api})`);
  assert.ok(authorization >= 11, `the authorization routes were found (${authorization})`);
  assert.ok(pages >= 3, `the password pages were found (${pages})`);
});
