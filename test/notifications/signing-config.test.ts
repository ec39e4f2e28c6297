// The signing key's settings: live refuses to start without NOTIFICATION_SIGNING_KEY, and a key file that
// cannot be read, is no PEM, or is not EC P-256 stops the start (buildApp) with a ConfigError naming the
// setting, the file, and never the file's content.
import assert from 'node:assert/strict';
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { openNotificationSigner } from '../../src/services/notifications/signing.ts';
import type { Db } from '../../src/store/database.ts';
import { startGateway } from '../helpers/gateway.ts';

const LIVE = {
  MODE: 'live',
  TLS_CERT: 'a',
  TLS_KEY: 'b',
  TLS_CLIENT_CA: 'c',
  DATA_DIR: 'data',
  EID_PROVIDER: 'simulator',
  FX_RATES: 'none',
  AUDIT_KEY: 'test-audit-key-0123456789abcdef0123456789',
};
const NO_DATABASE = {} as Db;

let dir: string;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'psd2-signing-config-'));
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function file(name: string, content: string | Buffer): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, content);
  return path;
}

const pem = (key: KeyObject) =>
  key.export({ format: 'pem', type: key.type === 'private' ? 'pkcs8' : 'spki' }).toString();

test('live: NOTIFICATION_SIGNING_KEY is required; the sandbox and a live start with it read its path', () => {
  assert.throws(
    () => loadConfig(LIVE),
    (error: unknown) =>
      error instanceof ConfigError &&
      error.key === 'NOTIFICATION_SIGNING_KEY' &&
      /live mode needs the PEM file of an EC P-256 private key/.test(error.message),
  );
  const live = loadConfig({
    ...LIVE,
    NOTIFICATION_SIGNING_KEY: ' /keys/current.pem ',
    NOTIFICATION_SIGNING_KEYS_RETIRED: '/keys/a.pem, /keys/b.pem,',
  });
  assert.deepEqual(
    [live.notificationSigningKey, live.notificationSigningKeysRetired],
    ['/keys/current.pem', ['/keys/a.pem', '/keys/b.pem']],
  );
  assert.deepEqual(
    [loadConfig({}).notificationSigningKey, loadConfig({}).notificationSigningKeysRetired],
    [undefined, []],
  );
});

test('a bad key file stops the start, naming the setting and the file, never its content', async () => {
  const secretish = 'THIS-IS-NOT-A-KEY-0123456789';
  const cases: [string, string, Record<string, unknown>, RegExp][] = [];
  const missing = join(dir, 'missing.pem');
  cases.push([
    'missing',
    'NOTIFICATION_SIGNING_KEY',
    { notificationSigningKey: missing },
    /cannot read the file/,
  ]);
  cases.push([
    'not PEM',
    'NOTIFICATION_SIGNING_KEY',
    { notificationSigningKey: await file('garbage.pem', secretish) },
    /holds no private key in PEM form \(PKCS#8, EC P-256\)/,
  ]);
  cases.push([
    'a public key where the private one must sign',
    'NOTIFICATION_SIGNING_KEY',
    {
      notificationSigningKey: await file(
        'public.pem',
        pem(generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey),
      ),
    },
    /holds no private key in PEM form/,
  ]);
  cases.push([
    'P-384',
    'NOTIFICATION_SIGNING_KEY',
    {
      notificationSigningKey: await file(
        'p384.pem',
        pem(generateKeyPairSync('ec', { namedCurve: 'P-384' }).privateKey),
      ),
    },
    /holds a ec secp384r1 key; notifications are signed with EC P-256 \(ES256\) keys/,
  ]);
  cases.push([
    'RSA',
    'NOTIFICATION_SIGNING_KEY',
    {
      notificationSigningKey: await file(
        'rsa.pem',
        pem(generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey),
      ),
    },
    /holds a rsa key; notifications are signed with EC P-256/,
  ]);
  cases.push([
    'a retired key that is no key',
    'NOTIFICATION_SIGNING_KEYS_RETIRED',
    { notificationSigningKeysRetired: [await file('retired-garbage.pem', secretish)] },
    /holds no public or private key in PEM form \(EC P-256\)/,
  ]);
  cases.push([
    'a retired Ed25519 key',
    'NOTIFICATION_SIGNING_KEYS_RETIRED',
    { notificationSigningKeysRetired: [await file('ed.pem', pem(generateKeyPairSync('ed25519').publicKey))] },
    /holds a ed25519 key/,
  ]);
  for (const [name, setting, config, message] of cases) {
    await assert.rejects(
      openNotificationSigner(
        { notificationSigningKey: undefined, notificationSigningKeysRetired: [], ...config },
        NO_DATABASE,
      ),
      (error: unknown) => {
        assert.ok(error instanceof ConfigError, name);
        assert.equal(error.key, setting, name);
        assert.match(error.message, message, name);
        assert.ok(!error.message.includes(secretish), `${name}: the file's content is not repeated`);
        return true;
      },
    );
  }
  // The app does not start on one: buildApp reads the files.
  await assert.rejects(
    startGateway({ config: { notificationSigningKey: missing } }),
    (error: unknown) => error instanceof ConfigError && error.key === 'NOTIFICATION_SIGNING_KEY',
  );
});
