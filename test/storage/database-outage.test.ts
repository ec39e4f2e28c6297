// The database goes away and comes back, through a TCP proxy the test controls between the gateway and
// PostgreSQL: refused (an outage: connections cut, new ones refused) and silent (a blackhole: bytes
// dropped, nothing closed). Meanwhile the API answers 503 SERVICE_UNAVAILABLE with Retry-After, the
// token endpoint 503 temporarily_unavailable, /readyz 503 (within STATE_MAX_AGE_MS, the age of a state it
// answers without asking again) while /livez stays 200; when the database is back the gateway serves
// again by itself. PostgreSQL only (skipped, saying so, without it).
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { TppClient } from '@psd2-gateway/client';
import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import pino from 'pino';
import { renderPage } from '../../src/api/psu/pages.ts';
import { buildApp } from '../../src/app.ts';
import { configWith } from '../../src/config.ts';
import { dateIn } from '../../src/domain/dates.ts';
import { ensureSandboxApp, seedTestCustomers } from '../../src/sandbox/seed.ts';
import { openStore } from '../../src/store/database/open.ts';
import type { Store } from '../../src/store/database.ts';
import { assertApiAway, assertOAuthAway, readiness, statusOf } from '../helpers/database-away.ts';
import { type DatabaseProxy, startDatabaseProxy } from '../helpers/db-proxy.ts';
import { TEST_DATABASE_URL } from '../helpers/gateway.ts';
import { domestic } from '../helpers/payments.ts';

const PATH = '/psd2/se/v2/payments/private/single/handelsbanken-domestic-credit-transfer';

const DATABASE_URL = TEST_DATABASE_URL;
if (DATABASE_URL === undefined) console.log('# database outage suite skipped: TEST_DATABASE_URL is not set');

describe('the database goes away and comes back', { skip: DATABASE_URL === undefined }, () => {
  const schemaName = `t_${randomBytes(6).toString('hex')}`;
  let proxy: DatabaseProxy;
  let store: Store;
  let app: FastifyInstance;
  let client: TppClient;
  let token: string;
  let base: string;

  before(async () => {
    proxy = await startDatabaseProxy(new URL(DATABASE_URL!));
    // Short bounds, so that a silent database is given up within the test's time.
    store = await openStore({
      databaseUrl: proxy.url,
      schemaName,
      poolSize: 4,
      timeouts: { connectMs: 500, statementMs: 1_000 },
    });
    const config = configWith({ schedulerIntervalMs: 0 });
    await seedTestCustomers(store.db, dateIn(new Date(), config.timeZone));
    app = await buildApp({ config, store, logger: pino({ level: 'silent' }), checkAnswers: true });
    base = await app.listen({ port: 0, host: '127.0.0.1' });
    const sandboxApp = await ensureSandboxApp(store.db, config, base);
    client = new TppClient(base, sandboxApp.clientId, sandboxApp.redirectUri);
    token = await client.clientCredentialsToken();
  });
  after(async () => {
    proxy.set('pass');
    await app?.close();
    await store?.close();
    await proxy?.close();
    const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await admin.connect();
    await admin.query(`DROP SCHEMA IF EXISTS ${schemaName} CASCADE`);
    await admin.end();
  });

  const get = (path: string) => statusOf(base, path);

  /** What a TPP sees while the database is away, on the API and at the token endpoint. */
  async function assertUnavailable() {
    assertApiAway(await client.initiate(token, { path: PATH, body: domestic() }));
    assertOAuthAway(await client.clientCredentials('AIS'));
    assert.deepEqual(
      [await readiness(base, 503), await get('/healthz'), await get('/livez')],
      [503, 503, 200],
    );
    // The PSU's login page: a page that says so, not the API's JSON.
    const csrf = 'c'.repeat(43);
    const login = await fetch(`${base}/psu/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: `psu_csrf=${csrf}` },
      body: new URLSearchParams({ request: 'r'.repeat(43), csrf, psu_id: '191212121212', password: 'x' }),
    });
    assert.deepEqual(
      {
        status: login.status,
        retryAfter: login.headers.get('retry-after'),
        type: login.headers.get('content-type'),
        body: await login.text(),
      },
      {
        status: 503,
        retryAfter: '5',
        type: 'text/html; charset=utf-8',
        body: renderPage(
          {
            view: 'message',
            title: 'Temporarily unavailable',
            text: "The gateway's database cannot answer right now. Please try again in a few minutes.",
          },
          undefined,
          '',
        ),
      },
    );
  }

  async function assertServing() {
    const initiated = await client.initiate(token, { path: PATH, body: domestic() });
    assert.equal(initiated.status, 200, JSON.stringify(initiated.body));
    assert.equal(initiated.body.transactionStatus, 'ACTC');
    assert.equal((await client.clientCredentials('AIS')).status, 200);
    assert.deepEqual([await readiness(base, 200), await get('/livez')], [200, 200]);
  }

  test('serving before anything happens', assertServing);

  test('an outage (connections cut, new ones refused): 503 with Retry-After; back by itself', async () => {
    proxy.set('refuse');
    await assertUnavailable();
    proxy.set('pass');
    await assertServing();
  });

  test('a silent database (every byte dropped): 503 within the bounds, no stall; back by itself', async () => {
    proxy.set('blackhole');
    await assertUnavailable();
    proxy.set('pass');
    await assertServing();
  });
});
