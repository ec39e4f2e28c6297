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
      databasePoolSize: config.databasePoolSize,
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
      databasePoolSize: 10,
    },
  );
  assert.ok(Object.isFrozen(config), 'the config is frozen');
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
    DB_POOL_SIZE: '4',
  });
  assert.equal(config.port, 8080);
  assert.equal(config.databasePoolSize, 4);
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

/** A live configuration that starts: TLS, a database on disk, the e-ID simulator asked for, no rates. */
const LIVE = {
  MODE: 'live',
  TLS_CERT: 'a',
  TLS_KEY: 'b',
  TLS_CLIENT_CA: 'c',
  DATA_DIR: 'data',
  EID_PROVIDER: 'simulator',
  FX_RATES: 'none',
  AUDIT_KEY: 'test-audit-key-0123456789abcdef0123456789',
  NOTIFICATION_SIGNING_KEY: 'notification-signing.pem',
};

test('a bad setting stops the start, naming it', () => {
  const cases: [Record<string, string>, string, RegExp][] = [
    [{ PORT: 'eighty' }, 'PORT', /whole number/],
    [{ PORT: '70000' }, 'PORT', /between 0 and 65535/],
    [{ DB_POOL_SIZE: '0' }, 'DB_POOL_SIZE', /between 1 and 100/],
    [{ DB_POOL_SIZE: 'ten' }, 'DB_POOL_SIZE', /whole number/],
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
    [
      { ...LIVE, EID_PROVIDER: '' },
      'EID_PROVIDER',
      /live mode needs EID_PROVIDER=bankid .* or, to try live without an e-ID, EID_PROVIDER=simulator/,
    ],
    [{ EID_PROVIDER: 'freja' }, 'EID_PROVIDER', /must be bankid or simulator/],
    [{ EID_PROVIDER: 'bankid' }, 'BANKID_URL', /required with EID_PROVIDER=bankid/],
    [{ EID_PROVIDER: 'bankid', BANKID_URL: 'http://rp' }, 'BANKID_URL', /must use https:/],
    [{ EID_PROVIDER: 'bankid', BANKID_URL: 'https://rp' }, 'BANKID_CERT', /relying party's certificate/],
    [
      { EID_PROVIDER: 'bankid', BANKID_URL: 'https://rp', BANKID_CERT: 'rp.pem' },
      'BANKID_KEY',
      /required with BANKID_CERT/,
    ],
    [{ PSU_OIDC_ISSUER: 'https://idp' }, 'PSU_OIDC_CLIENT_ID', /required with the other PSU_OIDC_ settings/],
    [{ CORE_BANKING_URL: 'ftp://core' }, 'CORE_BANKING_URL', /https: or http:/],
    [
      { CORE_BANKING_URL: 'https://core', CORE_BANKING_KEY: 'k' },
      'CORE_BANKING_CERT',
      /required with CORE_BANKING_KEY/,
    ],
    [
      { CORE_BANKING_URL: 'https://core', CORE_BANKING_TIMEOUT_MS: '5' },
      'CORE_BANKING_TIMEOUT_MS',
      /between 100/,
    ],
    [{ ...LIVE, FX_RATES: '' }, 'FX_RATES', /live mode needs a rate source/],
    [{ ...LIVE, FX_RATES: 'sandbox' }, 'FX_RATES', /not for live mode/],
    [{ FX_RATES: 'https://rates', FX_RATES_REFRESH_MS: '10' }, 'FX_RATES_REFRESH_MS', /between 1000/],
  ];
  for (const [env, key, message] of cases) {
    assert.throws(
      () => loadConfig(env),
      (error: unknown) => error instanceof ConfigError && error.key === key && message.test(error.message),
      key,
    );
  }
});

test('DATABASE_URL: one host or several (libpq), a target that writes; a bad one named, no password shown', () => {
  const multi = 'postgres://gw:secret@db1:5432,db2:5433/bank?target_session_attrs=read-write';
  for (const url of [
    multi,
    'postgres://gw:secret@db1,db2/bank',
    'postgres://u@db1/bank?target_session_attrs=any',
  ])
    assert.equal(loadConfig({ DATABASE_URL: url }).databaseUrl, url);
  const refused = (url: string) => {
    try {
      loadConfig({ DATABASE_URL: url });
    } catch (error) {
      return error instanceof ConfigError ? `${error.key} | ${error.message}` : String(error);
    }
    return 'accepted';
  };
  assert.deepEqual(
    [
      'postgres://gw:secret@db1:5432,db2:5433/bank?target_session_attrs=standby',
      'postgres://gw:secret@db1,db2/bank?target_session_attrs=any',
      'postgres://gw:secret@db1/bank?target_session_attrs=read-only',
      'postgres://gw:secret@db1,db2/bank?target_session_attrs=rw',
      'postgres://gw:secret@db1:5432,db2:port/bank',
      'postgres://gw:secret@db1,db 2/bank',
      'postgres://gw:se/cret@db1,db2/bank',
      'postgres://gw:p@ss@db1,db2/bank',
      'gw:secret@db1,db2/bank',
    ].map(refused),
    [
      "DATABASE_URL | DATABASE_URL: target_session_attrs=standby could send the gateway's writes to a standby: use read-write or primary (or leave it out: several hosts mean read-write)",
      "DATABASE_URL | DATABASE_URL: target_session_attrs=any could send the gateway's writes to a standby: use read-write or primary (or leave it out: several hosts mean read-write)",
      "DATABASE_URL | DATABASE_URL: target_session_attrs=read-only could send the gateway's writes to a standby: use read-write or primary or any",
      'DATABASE_URL | DATABASE_URL: target_session_attrs must be one of any, read-write, read-only, primary, standby, prefer-standby',
      'DATABASE_URL | DATABASE_URL: host 2 of the URL is not host[:port] (a list is host:port,host:port; percent-encode @ : / ? # in the user name and password)',
      'DATABASE_URL | DATABASE_URL: host 2 of the URL is not host[:port] (a list is host:port,host:port; percent-encode @ : / ? # in the user name and password)',
      // A password with an unencoded / or @ moves the parse: nothing of it is repeated.
      'DATABASE_URL | DATABASE_URL: host 1 of the URL is not host[:port] (a list is host:port,host:port; percent-encode @ : / ? # in the user name and password)',
      'DATABASE_URL | DATABASE_URL: host 1 of the URL is not host[:port] (a list is host:port,host:port; percent-encode @ : / ? # in the user name and password)',
      'DATABASE_URL | DATABASE_URL: must be an absolute URL: postgres://user:password@host:port/database, several hosts separated by commas',
    ],
  );
});

test('TIME_ZONE: a canonical IANA name, or an alias or another case that a formatter knows', () => {
  assert.equal(loadConfig({}).timeZone, 'Europe/Stockholm');
  for (const zone of ['America/New_York', 'UTC', 'Etc/UTC', 'europe/stockholm', 'Europe/Kiev'])
    assert.equal(loadConfig({ TIME_ZONE: zone }).timeZone, zone);
});

test('the sandbox listens on this machine only unless HOST says otherwise; live on every address', () => {
  assert.equal(loadConfig({ HOST: '0.0.0.0' }).host, '0.0.0.0');
  assert.equal(loadConfig(LIVE).host, '0.0.0.0');
  assert.equal(loadConfig({ ...LIVE, HOST: '127.0.0.1' }).host, '127.0.0.1');
});

test('test customers are seeded by default in the sandbox only', () => {
  assert.equal(loadConfig({}).seedTestData, true);
  assert.equal(loadConfig(LIVE).seedTestData, false);
  assert.equal(loadConfig({ ...LIVE, SEED_TEST_DATA: 'true' }).seedTestData, true);
});

test("the bank's systems: built in by default, the e-ID simulator live only by name, a rate source live", () => {
  const sandbox = loadConfig({});
  assert.deepEqual(
    [sandbox.eidProvider, sandbox.psuOidc, sandbox.coreBanking, sandbox.fxRates],
    [{ kind: 'simulator' }, undefined, undefined, { kind: 'sandbox' }],
  );
  const bank = loadConfig({
    ...LIVE,
    EID_PROVIDER: 'bankid',
    BANKID_URL: 'https://appapi2.test.bankid.com/rp/v6.0/',
    BANKID_CERT: 'rp.pem',
    BANKID_KEY: 'rp.key',
    BANKID_CA: 'bankid-ca.pem',
    PSU_OIDC_ISSUER: 'https://login.bank.example',
    PSU_OIDC_CLIENT_ID: 'psd2-gateway',
    PSU_OIDC_CLIENT_SECRET: 's3cret',
    PSU_OIDC_ID_CLAIM: 'personal_number',
    CORE_BANKING_URL: 'https://core.bank.example/api/',
    FX_RATES: '/etc/psd2/eurofxref-daily.xml',
  });
  assert.deepEqual(bank.eidProvider, {
    kind: 'bankid',
    url: 'https://appapi2.test.bankid.com/rp/v6.0',
    tls: { cert: 'rp.pem', key: 'rp.key', ca: 'bankid-ca.pem' },
  });
  assert.deepEqual(bank.psuOidc, {
    issuer: 'https://login.bank.example',
    clientId: 'psd2-gateway',
    clientSecret: 's3cret',
    idClaim: 'personal_number',
  });
  assert.deepEqual(bank.coreBanking, {
    url: 'https://core.bank.example/api',
    tls: { cert: undefined, key: undefined, ca: undefined },
    timeoutMs: 5000,
  });
  assert.deepEqual(bank.fxRates, {
    kind: 'file',
    path: '/etc/psd2/eurofxref-daily.xml',
    refreshMs: 3_600_000,
  });
  assert.deepEqual(loadConfig({ ...LIVE, FX_RATES: 'https://rates.example/eurofxref-daily.xml' }).fxRates, {
    kind: 'url',
    url: 'https://rates.example/eurofxref-daily.xml',
    refreshMs: 3_600_000,
  });
  assert.deepEqual(loadConfig(LIVE).fxRates, { kind: 'none' });
});
