import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.ts';

test('defaults', () => {
  const config = loadConfig({});
  assert.deepEqual(
    {
      port: config.port,
      host: config.host,
      mode: config.mode,
      basePath: config.basePath,
      logLevel: config.logLevel,
      databaseUrl: config.databaseUrl,
      dataDir: config.dataDir,
      sandboxClientId: config.sandboxClientId,
    },
    {
      port: 3000,
      host: '127.0.0.1',
      mode: 'sandbox',
      basePath: '',
      logLevel: 'info',
      databaseUrl: undefined,
      dataDir: undefined,
      sandboxClientId: undefined,
    },
  );
  assert.ok(Object.isFrozen(config));
});

test('settings are read and normalised', () => {
  const config = loadConfig({
    PORT: '8080',
    BASE_PATH: '/openbanking/',
    DATABASE_URL: 'postgres://u@localhost/db',
    SANDBOX_CLIENT_ID: '0123456789abcdef0123456789abcdef',
    SANDBOX_REDIRECT_URI: 'https://tpp.example/cb',
    CLIENT_ID_HEADER_ALIASES: 'X-IBM-Client-Id, x-other',
    PUBLIC_URL: 'https://sandbox.bank.example/',
  });
  assert.equal(config.port, 8080);
  assert.equal(config.basePath, '/openbanking');
  assert.equal(config.publicUrl, 'https://sandbox.bank.example');
  assert.deepEqual(config.clientIdHeaderAliases, ['x-ibm-client-id', 'x-other']);
});

test('clients of the real service: extra auth prefixes, a proxy, plain HTTPS in the sandbox', () => {
  const config = loadConfig({
    AUTH_BASE_PATHS: '/bb/gls5, /auth/',
    TRUST_PROXY: 'true',
    TLS_CERT: 'server.pem',
    TLS_KEY: 'server.key',
  });
  assert.deepEqual(config.authBasePaths, ['/bb/gls5', '/auth']);
  assert.equal(config.trustProxy, true);
  assert.deepEqual(config.tls, {
    cert: 'server.pem',
    key: 'server.key',
    clientCa: undefined,
    crl: undefined,
  });
  assert.deepEqual(loadConfig({}).authBasePaths, []);
  assert.equal(loadConfig({}).trustProxy, false);
});

test('a bad setting stops the start, naming it', () => {
  const cases: [Record<string, string>, string, RegExp][] = [
    [{ PORT: 'eighty' }, 'PORT', /whole number/],
    [{ PORT: '70000' }, 'PORT', /between 0 and 65535/],
    [{ MODE: 'production' }, 'MODE', /one of sandbox, live/],
    [{ MODE: 'live' }, 'TLS_CERT', /live mode needs TLS_CERT, TLS_KEY and TLS_CLIENT_CA/],
    [{ TLS_CERT: 'server.pem' }, 'TLS_KEY', /required with the other TLS_ settings/],
    [{ LOG_LEVEL: 'loud' }, 'LOG_LEVEL', /one of/],
    [{ BASE_PATH: 'openbanking' }, 'BASE_PATH', /\/openbanking/],
    [{ DATABASE_URL: 'mysql://x' }, 'DATABASE_URL', /postgres/],
    [{ DATABASE_URL: 'not a url' }, 'DATABASE_URL', /absolute URL/],
    [{ SANDBOX_CLIENT_ID: '0123-4567' }, 'SANDBOX_CLIENT_ID', /without dashes/],
    [{ SANDBOX_REDIRECT_URI: 'ftp://x' }, 'SANDBOX_REDIRECT_URI', /http/],
    [{ CLIENT_ID_HEADER_ALIASES: 'bad header' }, 'CLIENT_ID_HEADER_ALIASES', /not a header name/],
    [{ TIME_ZONE: 'Mars/Olympus' }, 'TIME_ZONE', /time zone/],
    [{ SEED_TEST_DATA: 'yes' }, 'SEED_TEST_DATA', /one of true, false/],
    [{ MODE: 'live', TLS_CERT: 'a', TLS_KEY: 'b' }, 'TLS_CLIENT_CA', /required with the other TLS_ settings/],
    [{ AUTH_BASE_PATHS: 'bb/gls5' }, 'AUTH_BASE_PATHS', /\/bb\/gls5/],
    [{ AUTH_BASE_PATHS: '/bb/gls5,/bb/gls5/' }, 'AUTH_BASE_PATHS', /given twice/],
    [{ AUTH_BASE_PATHS: '/openbanking', BASE_PATH: '/openbanking' }, 'AUTH_BASE_PATHS', /BASE_PATH itself/],
    [{ TRUST_PROXY: '1' }, 'TRUST_PROXY', /one of true, false/],
    [
      { MODE: 'live', TLS_CERT: 'a', TLS_KEY: 'b', TLS_CLIENT_CA: 'c' },
      'DATABASE_URL',
      /live mode needs a database that outlives the process: set DATABASE_URL \(PostgreSQL\) or DATA_DIR/,
    ],
  ];
  for (const [env, key, message] of cases) {
    assert.throws(
      () => loadConfig(env),
      (error: unknown) => error instanceof ConfigError && error.key === key && message.test(error.message),
      key,
    );
  }
});

test('the sandbox listens on this machine only unless HOST says otherwise; live on every address', () => {
  assert.equal(loadConfig({ HOST: '0.0.0.0' }).host, '0.0.0.0');
  const live = { MODE: 'live', TLS_CERT: 'a', TLS_KEY: 'b', TLS_CLIENT_CA: 'c', DATA_DIR: 'data' };
  assert.equal(loadConfig(live).host, '0.0.0.0');
  assert.equal(loadConfig({ ...live, HOST: '127.0.0.1' }).host, '127.0.0.1');
});

test('test customers are seeded by default in the sandbox only', () => {
  assert.equal(loadConfig({}).seedTestData, true);
  const tls = { TLS_CERT: 'a', TLS_KEY: 'b', TLS_CLIENT_CA: 'c', DATABASE_URL: 'postgres://db/bank' };
  assert.equal(loadConfig({ MODE: 'live', ...tls }).seedTestData, false);
  assert.equal(loadConfig({ MODE: 'live', ...tls, SEED_TEST_DATA: 'true' }).seedTestData, true);
});
