// Rate limits in memory (one process): over a limit, 429 with Retry-After in the endpoint's own error
// shape (the OAuth shape on the token and decoupled endpoints, the API shape on the API and authorize,
// an HTML page on the PSU's password pages); each app and each client address counts apart; a limit of
// 0 is none. Each test uses apps and client addresses of its own, so the tests share one gateway.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { openIdPsuLogin } from '../../src/adapters/openid-psu-login.ts';
import { renderPage } from '../../src/api/psu/pages.ts';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { type Gateway, sibling, startGateway } from '../helpers/gateway.ts';
import { errorBody } from '../helpers/http.ts';
import { PROVIDER_ACCOUNTS, settingsOf } from '../helpers/oidc.ts';
import { startOidcProvider } from '../stand-ins/oidc-provider.ts';

const LIMITS = {
  windowMs: 60_000,
  apiPerApp: 3,
  apiPerAddress: 5,
  authorizationPerApp: 3,
  authorizationPerAddress: 5,
  psuLoginPerAddress: 2,
};

let gateway: Gateway;
before(async () => {
  gateway = await startGateway({ config: { rateLimits: LIMITS } });
});
after(() => gateway.close());

interface Answer {
  readonly status: number;
  readonly retryAfter: string | undefined;
  readonly body: unknown;
}

async function send(
  target: Gateway,
  from: string,
  request: { method: 'GET' | 'POST'; url: string; headers?: Record<string, string>; payload?: string },
): Promise<Answer> {
  const response = await target.app.inject({ ...request, remoteAddress: from });
  const json = String(response.headers['content-type'] ?? '').includes('json');
  const retryAfter = response.headers['retry-after'];
  return {
    status: response.statusCode,
    retryAfter: retryAfter === undefined ? undefined : String(retryAfter),
    body: json ? JSON.parse(response.body) : response.body,
  };
}

const form = (fields: Record<string, string>) => ({
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
  payload: new URLSearchParams(fields).toString(),
});

function tokenRequest(clientId: string) {
  return {
    method: 'POST' as const,
    url: '/oauth2/token/1.0',
    ...form({ grant_type: 'client_credentials', scope: 'PIS', client_id: clientId }),
  };
}

/** The seconds of a 429's Retry-After: a whole number within the window. */
function seconds(answer: Answer): number {
  assert.equal(answer.status, 429, JSON.stringify(answer.body));
  assert.match(answer.retryAfter ?? '', /^[1-9][0-9]*$/);
  const value = Number(answer.retryAfter);
  assert.ok(value <= 60, `Retry-After ${value} is beyond the window`);
  return value;
}

const statuses = (answers: readonly Answer[]) => answers.map((answer) => answer.status);

async function inTurn(count: number, one: () => Promise<Answer>): Promise<Answer[]> {
  const answers: Answer[] = [];
  for (let i = 0; i < count; i++) answers.push(await one());
  return answers;
}

test('the token endpoint: per app from an address, then per address, in the OAuth shape', async () => {
  const first = await gateway.addApp('First');
  const second = await gateway.addApp('Second');
  const address = '192.0.2.10';
  const granted = await inTurn(3, () => send(gateway, address, tokenRequest(first.clientId)));
  assert.deepEqual(statuses(granted), [200, 200, 200]);
  assert.equal(granted[0]!.retryAfter, undefined);

  const overApp = await send(gateway, address, tokenRequest(first.clientId));
  const wait = seconds(overApp);
  assert.deepEqual(overApp.body, {
    error: 'temporarily_unavailable',
    error_description: `Too many requests from this app: at most 3 in 60 seconds; try again in ${wait} seconds`,
  });

  // Another app from the same address has its own count, until the address's 5 are used up.
  assert.equal((await send(gateway, address, tokenRequest(second.clientId))).status, 200);
  const overAddress = await send(gateway, address, tokenRequest(second.clientId));
  assert.deepEqual(overAddress.body, {
    error: 'temporarily_unavailable',
    error_description: `Too many requests from this address: at most 5 in 60 seconds; try again in ${seconds(overAddress)} seconds`,
  });

  // Another address has counts of its own, for the first app too: a caller is not yet authenticated
  // here, so one that sends another app's (public) client id spends only its own address's allowance.
  assert.equal((await send(gateway, '192.0.2.11', tokenRequest(second.clientId))).status, 200);
  assert.equal((await send(gateway, '192.0.2.11', tokenRequest(first.clientId))).status, 200);
});

test('an API endpoint: per app once authenticated, whatever the address; per address before', async () => {
  const app = await gateway.addApp('API');
  const token = async (clientId: string, from: string) => {
    const answer = await send(gateway, from, tokenRequest(clientId));
    assert.equal(answer.status, 200);
    return (answer.body as { access_token: string }).access_token;
  };
  const appToken = await token(app.clientId, '192.0.2.20');
  const status = (clientId: string, bearer: string | undefined, requestId: string) => ({
    method: 'GET' as const,
    url: `/psd2/v1/payments/handelsbanken-domestic-credit-transfer/${'0'.repeat(8)}-0000-4000-8000-${'0'.repeat(12)}/status`,
    headers: {
      'x-gateway-client-id': clientId,
      'tpp-request-id': requestId,
      'tpp-transaction-id': 't-1',
      country: 'SE',
      ...(bearer === undefined ? {} : { authorization: `Bearer ${bearer}` }),
    },
  });
  // Someone else sends the app's client id without its token: refused, and not counted for the app.
  const strangers = await inTurn(3, () =>
    send(gateway, '192.0.2.22', status(app.clientId, undefined, 'r-0')),
  );
  assert.deepEqual(statuses(strangers), [401, 401, 401]);
  // The app's own calls, from two addresses: three, then 429 from anywhere.
  const own = [
    await send(gateway, '192.0.2.20', status(app.clientId, appToken, 'r-1')),
    await send(gateway, '192.0.2.21', status(app.clientId, appToken, 'r-2')),
    await send(gateway, '192.0.2.20', status(app.clientId, appToken, 'r-3')),
  ];
  assert.deepEqual(statuses(own), [404, 404, 404]);
  const over = await send(gateway, '192.0.2.21', status(app.clientId, appToken, 'r-4'));
  assert.deepEqual(
    over.body,
    errorBody(429, 'Too Many Requests', {
      code: 'ACCESS_EXCEEDED',
      text: `Too many requests from this app: at most 3 in 60 seconds; try again in ${seconds(over)} seconds`,
    }),
  );
  // The stranger's address: its sixth call is over its own limit, before anything is looked up.
  const more = await inTurn(2, () => send(gateway, '192.0.2.22', status(app.clientId, undefined, 'r-5')));
  assert.deepEqual(statuses(more), [401, 401]);
  const overAddress = await send(gateway, '192.0.2.22', status('unknown-app', undefined, 'r-6'));
  assert.deepEqual(
    overAddress.body,
    errorBody(429, 'Too Many Requests', {
      code: 'ACCESS_EXCEEDED',
      text: `Too many requests from this address: at most 5 in 60 seconds; try again in ${seconds(overAddress)} seconds`,
    }),
  );
});

test('the 429 answer echoes the TPP headers, as every API answer does', async () => {
  const app = await gateway.addApp('Echo');
  const headers = {
    'x-gateway-client-id': app.clientId,
    'tpp-request-id': 'echo-1',
    'tpp-transaction-id': 'echo-t',
    country: 'SE',
  };
  const from = { method: 'GET' as const, url: '/psd2/v1/accounts', headers, remoteAddress: '192.0.2.25' };
  for (let i = 0; i < 5; i++) await gateway.app.inject(from);
  const over = await gateway.app.inject(from);
  assert.equal(over.statusCode, 429);
  assert.equal(over.headers['tpp-request-id'], 'echo-1');
  assert.equal(over.headers['tpp-transaction-id'], 'echo-t');
  assert.ok(over.headers['x-correlation-id'], 'the 429 carries a correlation id');
});

test('authorize: per app from an address and per address, in the API shape (no redirect)', async () => {
  const app = await gateway.addApp('Authorize');
  const authorize = (clientId: string) => ({
    method: 'GET' as const,
    url: `/oauth2/authorize/1.0?${new URLSearchParams({ response_type: 'code', client_id: clientId, scope: 'PIS:unknown', state: 's', redirect_uri: app.redirectUri })}`,
  });
  // Errors with a valid client and redirect URI go back to the TPP: each is a redirect, and counted
  // for the app at this address.
  const answered = await inTurn(3, () => send(gateway, '192.0.2.30', authorize(app.clientId)));
  assert.deepEqual(statuses(answered), [302, 302, 302]);
  const over = await send(gateway, '192.0.2.30', authorize(app.clientId));
  assert.deepEqual(
    over.body,
    errorBody(429, 'Too Many Requests', {
      code: 'ACCESS_EXCEEDED',
      text: `Too many requests from this app: at most 3 in 60 seconds; try again in ${seconds(over)} seconds`,
    }),
  );
  // The same app from another address (a PSU elsewhere) is not held back by it.
  assert.equal((await send(gateway, '192.0.2.31', authorize(app.clientId))).status, 302);

  // One address with many (unknown) apps: its 5 calls, then 429 per address.
  const address = '192.0.2.34';
  const unknown = await inTurn(5, () => send(gateway, address, authorize(`unknown-${Math.random()}`)));
  assert.deepEqual(statuses(unknown), [400, 400, 400, 400, 400]);
  const overAddress = await send(gateway, address, authorize('another-unknown'));
  assert.deepEqual(
    overAddress.body,
    errorBody(429, 'Too Many Requests', {
      code: 'ACCESS_EXCEEDED',
      text: `Too many requests from this address: at most 5 in 60 seconds; try again in ${seconds(overAddress)} seconds`,
    }),
  );
});

test('decoupled: the start per app from an address, polls per address, in the OAuth shape', async () => {
  const app = await gateway.addApp('Decoupled');
  const start = (address: string) =>
    send(gateway, address, {
      method: 'POST',
      url: '/decoupled/eid/initAuthorization/2.0',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({
        client_id: app.clientId,
        scope: 'PIS:unknown',
        psu_client_ip: '192.0.2.1',
        bisa_same_device: false,
      }),
    });
  const started = await inTurn(3, () => start('192.0.2.40'));
  assert.deepEqual(statuses(started), [400, 400, 400]);
  const over = await start('192.0.2.40');
  assert.deepEqual(over.body, {
    error: 'temporarily_unavailable',
    error_description: `Too many requests from this app: at most 3 in 60 seconds; try again in ${seconds(over)} seconds`,
  });
  assert.equal((await start('192.0.2.41')).status, 400);

  // A poll names no app: the address counts.
  const poll = () =>
    send(gateway, '192.0.2.44', {
      method: 'POST',
      url: '/decoupled/eid/token/2.0?sessionId=unknown',
      headers: { 'content-type': 'application/json' },
      payload: '{}',
    });
  const polled = await inTurn(5, poll);
  assert.deepEqual(statuses(polled), [400, 400, 400, 400, 400]);
  const overPolls = await poll();
  assert.deepEqual(overPolls.body, {
    error: 'temporarily_unavailable',
    error_description: `Too many requests from this address: at most 5 in 60 seconds; try again in ${seconds(overPolls)} seconds`,
  });
});

/** The PSU's pages over their limit: the page that says so, with the wait of its Retry-After. */
function assertTooManyAttempts(over: Answer): void {
  const wait = seconds(over);
  assert.equal(
    over.body,
    renderPage(
      {
        view: 'message',
        title: 'Too many attempts',
        text: `Too many attempts from this address; try again in ${wait} seconds.`,
      },
      undefined,
      '',
    ),
  );
}

test("the PSU's login page: per address, as a page", async () => {
  const login = (address: string) =>
    send(gateway, address, {
      method: 'POST',
      url: '/psu/login',
      ...form({ request: 'unknown', csrf: 'x', psu_id: '199001011234', password: 'guess' }),
    });
  const tried = await inTurn(2, () => login('192.0.2.50'));
  assert.deepEqual(statuses(tried), [400, 400]);
  assertTooManyAttempts(await login('192.0.2.50'));
  // Another address is not held back.
  assert.equal((await login('192.0.2.51')).status, 400);
});

test("the PSU's dashboard: each login begun at the bank's provider counts per address, as a page", async () => {
  const provider = await startOidcProvider(PROVIDER_ACCOUNTS);
  const withProvider = await sibling(gateway, {
    config: { rateLimits: LIMITS },
    psuIdentityProvider: await openIdPsuLogin(settingsOf(provider)),
  });
  try {
    const open = (address: string) => send(withProvider, address, { method: 'GET', url: '/psu/dashboard' });
    const begun = await inTurn(2, () => open('192.0.2.55'));
    assert.deepEqual(statuses(begun), [302, 302]);
    assertTooManyAttempts(await open('192.0.2.55'));
    assert.equal((await open('192.0.2.56')).status, 302);
  } finally {
    await withProvider.close();
    await provider.close();
  }
});

test('a limit of 0 is none', async () => {
  const unlimited = await sibling(gateway, {
    config: {
      rateLimits: {
        ...LIMITS,
        apiPerApp: 0,
        apiPerAddress: 0,
        authorizationPerApp: 0,
        authorizationPerAddress: 0,
      },
    },
  });
  try {
    const tokens = await inTurn(10, () =>
      send(unlimited, '192.0.2.60', tokenRequest(unlimited.sandboxApp.clientId)),
    );
    assert.deepEqual(new Set(statuses(tokens)), new Set([200]));
  } finally {
    await unlimited.close();
  }
});

test('the settings: defaults, 0 for none, and what is refused', () => {
  assert.deepEqual(loadConfig({}).rateLimits, {
    windowMs: 60_000,
    apiPerApp: 6_000,
    apiPerAddress: 6_000,
    authorizationPerApp: 1_200,
    authorizationPerAddress: 1_200,
    psuLoginPerAddress: 300,
  });
  assert.equal(loadConfig({}).redisUrl, undefined);
  const set = loadConfig({
    RATE_LIMIT_WINDOW_MS: '1000',
    RATE_LIMIT_API_PER_APP: '0',
    RATE_LIMIT_API_PER_ADDRESS: '7',
    RATE_LIMIT_AUTH_PER_APP: '10',
    RATE_LIMIT_AUTH_PER_ADDRESS: '20',
    RATE_LIMIT_PSU_LOGIN_PER_ADDRESS: '5',
    REDIS_URL: 'redis://127.0.0.1:6379/0',
  });
  assert.deepEqual(set.rateLimits, {
    windowMs: 1_000,
    apiPerApp: 0,
    apiPerAddress: 7,
    authorizationPerApp: 10,
    authorizationPerAddress: 20,
    psuLoginPerAddress: 5,
  });
  assert.equal(set.redisUrl, 'redis://127.0.0.1:6379/0');
  assert.throws(
    () => loadConfig({ RATE_LIMIT_API_PER_APP: 'many' }),
    new ConfigError('RATE_LIMIT_API_PER_APP', 'must be a whole number, got "many"'),
  );
  assert.throws(
    () => loadConfig({ RATE_LIMIT_WINDOW_MS: '10' }),
    new ConfigError('RATE_LIMIT_WINDOW_MS', 'must be between 1000 and 86400000, got 10'),
  );
  assert.throws(
    () => loadConfig({ REDIS_URL: 'http://127.0.0.1:6379' }),
    new ConfigError('REDIS_URL', 'must use redis: or rediss:, got "http:"'),
  );
});
