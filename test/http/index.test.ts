// GET /: JSON links for a client; a browser is sent to the sandbox page (which links the docs page),
// or, live, where there is no sandbox page, to the docs page.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { VERSION } from '../../src/version.ts';
import { type Gateway, sibling, startGateway } from '../helpers/gateway.ts';

const BROWSER = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

let gateway: Gateway;
before(async () => {
  gateway = await startGateway();
});
after(() => gateway.close());

const get = (url: string, accept?: string) =>
  fetch(url, { redirect: 'manual', headers: accept === undefined ? {} : { accept } });

test('a client asking for JSON, or for anything: the links, as before', async () => {
  for (const accept of ['application/json', undefined, '*/*', 'text/html;q=0.5, application/json']) {
    const answer = await get(`${gateway.url}/`, accept);
    assert.deepEqual(
      { status: answer.status, body: await answer.json() },
      {
        status: 200,
        body: {
          service: 'psd2-gateway',
          version: VERSION,
          mode: 'sandbox',
          links: {
            docs: `${gateway.url}/docs`,
            openapi: `${gateway.url}/openapi.json`,
            openapiYaml: `${gateway.url}/openapi.yaml`,
            health: `${gateway.url}/healthz`,
            sandbox: `${gateway.url}/sandbox`,
          },
        },
      },
      String(accept),
    );
  }
});

test('a browser in the sandbox: to the sandbox page, which links the docs page', async () => {
  const answer = await get(`${gateway.url}/`, BROWSER);
  assert.deepEqual(
    { status: answer.status, location: answer.headers.get('location') },
    { status: 302, location: '/sandbox' },
  );
  const page = await get(new URL(answer.headers.get('location')!, gateway.url).href, BROWSER);
  assert.equal(page.status, 200);
  assert.match(page.headers.get('content-type') ?? '', /^text\/html/);
  assert.ok(
    (await page.text()).includes(`<a href="${gateway.url}/docs">${gateway.url}/docs</a>`),
    'the sandbox page links the docs page',
  );
});

test('under BASE_PATH, and live (no sandbox page): to the docs page', async () => {
  const prefixed = await sibling(gateway, { config: { basePath: '/openbanking' } });
  const live = await sibling(gateway, { config: { mode: 'live' } });
  try {
    const under = await get(`${prefixed.url}/`, BROWSER);
    assert.deepEqual(
      { status: under.status, location: under.headers.get('location') },
      { status: 302, location: '/openbanking/sandbox' },
    );
    const toDocs = await get(`${live.url}/`, BROWSER);
    assert.deepEqual(
      { status: toDocs.status, location: toDocs.headers.get('location') },
      { status: 302, location: '/docs' },
    );
    const docs = await fetch(new URL('/docs', live.url), { headers: { accept: BROWSER } });
    assert.equal(docs.status, 200);
    assert.match(docs.headers.get('content-type') ?? '', /^text\/html/);
    const json = await get(`${live.url}/`, 'application/json');
    assert.deepEqual(
      { status: json.status, links: ((await json.json()) as { links: unknown }).links },
      {
        status: 200,
        links: {
          docs: `${live.url}/docs`,
          openapi: `${live.url}/openapi.json`,
          openapiYaml: `${live.url}/openapi.yaml`,
          health: `${live.url}/healthz`,
        },
      },
    );
  } finally {
    await live.close();
    await prefixed.close();
  }
});
