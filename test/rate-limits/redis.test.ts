// Rate limits shared through Redis (REDIS_URL): two gateways started as main starts them count one
// app's requests together, in keys named by their limit that end with its window (one left without
// expiry gets it); a Redis that goes away lets requests through (no 500, no 429) and is counted again
// once it is back; a REDIS_URL that does not answer stops the start, naming it.
// A real Redis: Debian's redis-server, started here on a free loopback port (skipped without it).
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { type Config, configWith, StartError } from '../../src/config.ts';
import { start } from '../../src/main.ts';
import { openRedis } from '../../src/store/redis.ts';
import { refusedPort } from '../helpers/ports.ts';
import { freePort } from '../helpers/serve-process.ts';
import { startCapturing } from '../helpers/start.ts';

const REDIS_SERVER = '/usr/bin/redis-server';
const present = existsSync(REDIS_SERVER);
if (!present)
  console.log(`# Redis suites skipped: ${REDIS_SERVER} is not installed (apt-get install redis-server)`);

/** A redis-server of this test's own, in memory only; answers once it takes commands. */
async function startRedis(port: number): Promise<ChildProcess> {
  const child = spawn(
    REDIS_SERVER,
    ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    { stdio: 'ignore' },
  );
  // Up to 100 tries, 50 ms apart: it takes commands within milliseconds.
  for (let i = 0; i < 100; i++) {
    try {
      const probe = await openRedis(`redis://127.0.0.1:${port}`);
      probe.disconnect();
      return child;
    } catch {
      await sleep(50);
    }
  }
  child.kill('SIGKILL');
  throw new Error(`redis-server did not answer on port ${port}`);
}

async function stopRedis(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
}

const LIMITS = {
  windowMs: 60_000,
  apiPerApp: 3,
  apiPerAddress: 1_000,
  authorizationPerApp: 3,
  authorizationPerAddress: 1_000,
  psuLoginPerAddress: 1_000,
};

function gatewayConfig(redisUrl: string, clientId: string): Config {
  return configWith({
    port: 0,
    host: '127.0.0.1',
    logLevel: 'info',
    sandboxClientId: clientId,
    sandboxRedirectUri: 'https://tpp.example/callback',
    schedulerIntervalMs: 0,
    redisUrl,
    rateLimits: LIMITS,
  });
}

async function token(url: string, clientId: string): Promise<{ status: number; body: unknown }> {
  const response = await fetch(`${url}/oauth2/token/1.0`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'client_credentials', scope: 'PIS', client_id: clientId }),
  });
  return { status: response.status, body: await response.json() };
}

let redisPort: number;
let redis: ChildProcess | undefined;
before(async () => {
  if (!present) return;
  redisPort = await freePort();
  redis = await startRedis(redisPort);
});
after(async () => {
  if (redis !== undefined) await stopRedis(redis);
});

test('two gateways on one Redis count an app together', { skip: !present }, async () => {
  const clientId = randomBytes(16).toString('hex');
  const config = gatewayConfig(`redis://127.0.0.1:${redisPort}`, clientId);
  const first = await startCapturing(config);
  const second = await startCapturing(config);
  try {
    const answers = [];
    for (const url of [first.server.url, second.server.url, first.server.url])
      answers.push((await token(url, clientId)).status);
    assert.deepEqual(answers, [200, 200, 200]);
    // The fourth, at the second gateway: over the app's 3, counted at both.
    const over = await token(second.server.url, clientId);
    assert.equal(over.status, 429);
    const { error_description } = over.body as { error_description: string };
    assert.match(
      error_description,
      /^Too many requests from this app: at most 3 in 60 seconds; try again in [1-9][0-9]* seconds$/,
    );
    assert.deepEqual(over.body, { error: 'temporarily_unavailable', error_description });
    assert.ok(
      first.lines.some((line) => line.phase === 'redis'),
      'the start names the Redis phase',
    );
    // Each limit's counter under the gateway's prefix and the limit's name, nothing else in the key.
    const redisClient = await openRedis(`redis://127.0.0.1:${redisPort}`);
    try {
      const keys = (await redisClient.keys(`*${clientId}*`)).sort();
      assert.deepEqual(keys, [`psd2-gateway:rate-limit:auth-app:${clientId}|127.0.0.1`]);
      assert.equal(await redisClient.get(keys[0]!), '4');
      // The counter ends with its window: set when the count started, not renewed by later calls.
      const ttl = await redisClient.pttl(keys[0]!);
      assert.ok(ttl > 0 && ttl <= LIMITS.windowMs, `PTTL ${ttl} within the window`);
      assert.deepEqual(await redisClient.keys('*undefined*'), []);
      assert.ok(
        (await redisClient.keys('psd2-gateway:rate-limit:auth-address:*')).includes(
          'psd2-gateway:rate-limit:auth-address:127.0.0.1',
        ),
        'the per-address limit counts under its own name',
      );
    } finally {
      redisClient.disconnect();
    }
  } finally {
    await first.server.close();
    await second.server.close();
  }
});

test('a counter that has no expiry gets the window, rather than refusing for ever', {
  skip: !present,
}, async () => {
  const clientId = randomBytes(16).toString('hex');
  const key = `psd2-gateway:rate-limit:auth-app:${clientId}|127.0.0.1`;
  const redisClient = await openRedis(`redis://127.0.0.1:${redisPort}`);
  const { server } = await startCapturing(gatewayConfig(`redis://127.0.0.1:${redisPort}`, clientId));
  try {
    // The app's 3 spent, in a key without expiry (written by hand, or left by an older counter).
    await redisClient.set(key, '3');
    const over = await token(server.url, clientId);
    assert.equal(over.status, 429);
    assert.deepEqual(over.body, {
      error: 'temporarily_unavailable',
      error_description: 'Too many requests from this app: at most 3 in 60 seconds; try again in 60 seconds',
    });
    assert.equal(await redisClient.get(key), '4');
    const ttl = await redisClient.pttl(key);
    assert.ok(ttl > 0 && ttl <= LIMITS.windowMs, `PTTL ${ttl} within the window`);
  } finally {
    await server.close();
    redisClient.disconnect();
  }
});

test('a Redis that goes away lets requests through, and counts again once back', {
  skip: !present,
}, async () => {
  const port = await freePort();
  let own = await startRedis(port);
  const clientId = randomBytes(16).toString('hex');
  const { server, lines } = await startCapturing(gatewayConfig(`redis://127.0.0.1:${port}`, clientId));
  try {
    await stopRedis(own);
    // Away: every call is answered as without limits, never a 500 and never a 429.
    const away = [];
    for (let i = 0; i < 6; i++) away.push((await token(server.url, clientId)).status);
    assert.deepEqual(away, [200, 200, 200, 200, 200, 200]);
    assert.ok(
      lines.some((line) => line.msg === 'Redis is away: rate limits are not counted until it is back'),
      'Redis going away is logged',
    );

    own = await startRedis(port);
    // The client reconnects by itself (within a second or so): then the fourth call is over the limit.
    // Up to 100 calls, 50 ms apart.
    let status = 0;
    for (let i = 0; i < 100 && status !== 429; i++) {
      status = (await token(server.url, clientId)).status;
      if (status !== 429) await sleep(50);
    }
    assert.equal(status, 429);
    assert.ok(
      lines.some((line) => line.msg === 'Redis is back: rate limits are counted again'),
      'Redis coming back is logged',
    );
  } finally {
    await server.close();
    await stopRedis(own);
  }
});

test('a REDIS_URL that does not answer stops the start, naming it', async () => {
  const port = await refusedPort();
  const config = gatewayConfig(`redis://127.0.0.1:${port}`, randomBytes(16).toString('hex'));
  await assert.rejects(
    start({ ...config, logLevel: 'silent' }),
    new StartError(
      'REDIS_URL',
      `Redis at 127.0.0.1:${port} does not answer: connect ECONNREFUSED 127.0.0.1:${port}; start Redis there, correct REDIS_URL, or unset it (each process then counts its own rate limits)`,
    ),
  );
});
