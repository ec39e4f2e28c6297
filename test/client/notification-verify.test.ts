// verifyNotification of the typed client: what the gateway's signer signs verifies; each change a
// tamperer could make (body, digest, method, URL, created, keyid, alg, the covered components) is refused
// with its own code; fetch Headers and node:http's header records are both read; and its structured-field
// code reproduces RFC 9421's own ECDSA P-256 example (B.2.4), whose signature verifies with the RFC's key.
import assert from 'node:assert/strict';
import { createHash, generateKeyPairSync, sign } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import {
  type NotificationKeySet,
  type NotificationVerificationCode,
  NotificationVerificationError,
  verifyNotification,
} from '@psd2-gateway/client';
import { parseDictionary, serializeInnerList } from '../../packages/client/src/structured-fields.ts';
import { type NotificationSigner, openNotificationSigner } from '../../src/services/notifications/signing.ts';
import type { Db } from '../../src/store/database.ts';

const URL_ = 'https://tpp.example/notify/psd2?app=budget';
const BODY = Buffer.from('{"notificationId":"6f1c","resourceType":"payment","status":"ACSC"}');
const NOW = new Date('2026-05-04T10:00:00.000Z');
const at = () => NOW;

let dir: string;
let signer: NotificationSigner;
let jwks: NotificationKeySet;
let headers: Record<string, string>;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'psd2-verify-'));
  const key = join(dir, 'key.pem');
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  await writeFile(key, privateKey.export({ format: 'pem', type: 'pkcs8' }));
  signer = await openNotificationSigner(
    { notificationSigningKey: key, notificationSigningKeysRetired: [] },
    {} as Db,
    { now: at },
  );
  jwks = await signer.jwks();
  headers = await signer.sign({ method: 'POST', url: URL_, body: BODY });
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

const delivery = (changes: Partial<Parameters<typeof verifyNotification>[0]> = {}) => ({
  method: 'POST',
  url: URL_,
  headers,
  body: BODY,
  ...changes,
});

async function refused(
  code: NotificationVerificationCode,
  changes: Partial<Parameters<typeof verifyNotification>[0]>,
  options: Parameters<typeof verifyNotification>[2] = { now: at },
  keys: NotificationKeySet = jwks,
): Promise<void> {
  await assert.rejects(verifyNotification(delivery(changes), keys, options), (error: unknown) => {
    assert.ok(error instanceof NotificationVerificationError, String(error));
    assert.equal(error.code, code, error.message);
    return true;
  });
}

const withInput = (replace: (input: string) => string) => ({
  headers: { ...headers, 'signature-input': replace(headers['signature-input']!) },
});

test('a delivery as signed verifies: from a record, node:http style, or a fetch Headers; body as bytes or text', async () => {
  const answer = { ok: true, keyId: jwks.keys[0]!.kid, created: NOW };
  assert.deepEqual(await verifyNotification(delivery(), jwks, { now: at }), answer);
  const upper = Object.fromEntries(
    Object.entries(headers).map(([name, value]) => [name.toUpperCase(), value]),
  );
  assert.deepEqual(await verifyNotification(delivery({ headers: upper }), jwks, { now: at }), answer);
  assert.deepEqual(
    await verifyNotification(delivery({ headers: new Headers(headers), body: BODY.toString('utf8') }), jwks, {
      now: at,
    }),
    answer,
  );
  // Within the tolerances: 5 minutes old, 1 minute ahead.
  const later = new Date(NOW.getTime() + 300_000);
  assert.deepEqual(await verifyNotification(delivery(), jwks, { now: () => later }), answer);
  const earlier = new Date(NOW.getTime() - 60_000);
  assert.deepEqual(await verifyNotification(delivery(), jwks, { now: () => earlier }), answer);
});

test('the URL as written by the TPP and as signed need only be the same URL (WHATWG form)', async () => {
  const written = await signer.sign({
    method: 'POST',
    url: 'HTTPS://TPP.Example:443/notify/psd2?app=budget',
    body: BODY,
  });
  assert.match(written['signature-input']!, /^sig1=\(/);
  const answer = { ok: true, keyId: jwks.keys[0]!.kid, created: NOW };
  assert.deepEqual(await verifyNotification(delivery({ headers: written }), jwks, { now: at }), answer);
  const bare = await signer.sign({ method: 'POST', url: 'https://tpp.example', body: BODY });
  assert.deepEqual(
    await verifyNotification(delivery({ headers: bare, url: 'https://tpp.example/' }), jwks, { now: at }),
    answer,
  );
  // The query is part of it: another value is another URL.
  await refused('SIGNATURE_INVALID', { headers: written, url: 'https://tpp.example/notify/psd2?app=Budget' });
});

test('the body or its digest changed', async () => {
  const tampered = Buffer.from(BODY.toString().replace('ACSC', 'RJCT'));
  await refused('DIGEST_MISMATCH', { body: tampered });
  // The digest made to match the tampered body: the signature covers the digest.
  const digest = `sha-256=:${createHash('sha256').update(tampered).digest('base64')}:`;
  await refused('SIGNATURE_INVALID', { body: tampered, headers: { ...headers, 'content-digest': digest } });
  const { 'content-digest': _, ...withoutDigest } = headers;
  await refused('DIGEST_MISSING', { headers: withoutDigest });
  await refused('DIGEST_MISSING', { headers: { ...headers, 'content-digest': 'md5=:AAAA:' } });
});

test('the method, the URL, created or keyid changed', async () => {
  await refused('SIGNATURE_INVALID', { method: 'PUT' });
  await refused('SIGNATURE_INVALID', { url: 'https://tpp.example/notify/psd2?app=other' });
  await refused('SIGNATURE_INVALID', { url: 'https://evil.example/notify/psd2?app=budget' });
  const created = Math.floor(NOW.getTime() / 1000);
  await refused(
    'SIGNATURE_INVALID',
    withInput((input) => input.replace(`created=${created}`, `created=${created + 1}`)),
  );
  await refused(
    'KEY_UNKNOWN',
    withInput((input) => input.replace(/keyid="[^"]+"/, 'keyid="another"')),
  );
  await refused(
    'KEY_UNKNOWN',
    withInput((input) => input.replace(/;keyid="[^"]+"/, '')),
  );
  // Another key of the set named: the signature is not that key's.
  const { publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const other = { ...publicKey.export({ format: 'jwk' }), kid: 'other', alg: 'ES256', use: 'sig' } as never;
  await refused(
    'SIGNATURE_INVALID',
    withInput((input) => input.replace(/keyid="[^"]+"/, 'keyid="other"')),
    { now: at },
    { keys: [...jwks.keys, other] },
  );
  await refused(
    'ALGORITHM_UNSUPPORTED',
    withInput((input) => input.replace('alg="ecdsa-p256-sha256"', 'alg="ed25519"')),
  );
});

test('too old, from the future, expired, or without created', async () => {
  await refused('SIGNATURE_EXPIRED', {}, { now: () => new Date(NOW.getTime() + 301_000) });
  await refused('SIGNATURE_EXPIRED', {}, { now: () => new Date(NOW.getTime() + 31_000), maxAgeSeconds: 30 });
  await refused('CREATED_IN_FUTURE', {}, { now: () => new Date(NOW.getTime() - 61_000) });
  await refused(
    'CREATED_MISSING',
    withInput((input) => input.replace(/;created=\d+/, '')),
  );
  await refused(
    'SIGNATURE_EXPIRED',
    withInput((input) => `${input};expires=${Math.floor(NOW.getTime() / 1000) - 1}`),
  );
});

test('missing, malformed, or not covering what it must', async () => {
  const { signature: _, ...unsigned } = headers;
  await refused('SIGNATURE_MISSING', { headers: unsigned });
  await refused(
    'SIGNATURE_MISSING',
    withInput((input) => input.replace(' "content-digest"', '')),
  );
  await refused(
    'SIGNATURE_MISSING',
    withInput((input) => input.replace('"@target-uri" ', '')),
  );
  await refused(
    'SIGNATURE_MALFORMED',
    withInput((input) => input.replace('sig1=(', 'sig1=("')),
  );
  await refused('SIGNATURE_MALFORMED', { headers: { ...headers, signature: 'sig1="not bytes"' } });
  await refused('SIGNATURE_MALFORMED', { headers: { ...headers, signature: 'sig2=:AAAA:' } });
  await refused(
    'COMPONENT_UNSUPPORTED',
    withInput((input) => input.replace('"content-digest"', '"content-digest";sf')),
  );
  // A component added to the list that the signature did not cover: the base differs.
  await refused(
    'SIGNATURE_INVALID',
    withInput((input) => input.replace('"content-digest"', '"content-digest" "@path"')),
  );
});

test("RFC 9421 B.2.4: the RFC's Signature-Input serialized back into its @signature-params line; its signature verifies", async () => {
  const input = parseDictionary(
    'sig-b24=("@status" "content-type" "content-digest" "content-length");created=1618884473;keyid="test-key-ecc-p256"',
  ).get('sig-b24');
  assert.ok(input !== undefined && 'items' in input, 'sig-b24 is an inner list');
  const params = serializeInnerList(input);
  assert.equal(
    params,
    '("@status" "content-type" "content-digest" "content-length");created=1618884473;keyid="test-key-ecc-p256"',
  );
  const body = '{"message": "good dog"}';
  const digest = createHash('sha512').update(body).digest('base64');
  assert.equal(
    digest,
    'mEWXIS7MaLRuGgxOBdODa3xqM1XdEvxoYhvlCFJ41QJgJc4GTsPp29l5oGX69wWdXymyU0rjJuahq4l5aGgfLQ==',
  );
  const base = [
    '"@status": 200',
    '"content-type": application/json',
    `"content-digest": sha-512=:${digest}:`,
    '"content-length": 23',
    `"@signature-params": ${params}`,
  ].join('\n');
  const signature = parseDictionary(
    'sig-b24=:wNmSUAhwb5LxtOtOpNa6W5xj067m5hFrj0XQ4fvpaCLx0NKocgPquLgyahnzDnDAUy5eCdlYUEkLIj+32oiasw==:',
  ).get('sig-b24');
  assert.ok(
    signature !== undefined && !('items' in signature) && signature.item.type === 'bytes',
    'the signature is a byte sequence',
  );
  // RFC 9421 B.1.3's test-key-ecc-p256, public part, as a JWK: verified as verifyNotification does.
  const key = await crypto.subtle.importKey(
    'jwk',
    {
      kty: 'EC',
      crv: 'P-256',
      x: 'qIVYZVLCrPZHGHjP17CTW0_-D9Lfw0EkjqF7xB4FivA',
      y: 'Mc4nN9LTDOBhfoUeg8Ye9WedFRhnZXZJA12Qp0zZ6F0',
    },
    { name: 'ECDSA', namedCurve: 'P-256' },
    false,
    ['verify'],
  );
  const ecdsa = { name: 'ECDSA', hash: 'SHA-256' };
  const bytes = signature.item.value as Uint8Array<ArrayBuffer>;
  assert.equal(bytes.length, 64);
  assert.equal(await crypto.subtle.verify(ecdsa, key, bytes, new TextEncoder().encode(base)), true);
  assert.equal(await crypto.subtle.verify(ecdsa, key, bytes, new TextEncoder().encode(`${base} `)), false);
});

test('structured fields: what the gateway writes reads back the same, and broken fields are refused', () => {
  const raw = sign('sha256', Buffer.from('x'), {
    key: generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey,
    dsaEncoding: 'ieee-p1363',
  });
  const parsed = parseDictionary(
    `a=:${raw.toString('base64')}:, b=?0, c=1.5;q=tok/en, d=("x" 2);p="\\"q\\\\"`,
  );
  const d = parsed.get('d');
  assert.ok(d !== undefined && 'items' in d, 'd is an inner list');
  assert.equal(serializeInnerList(d), '("x" 2);p="\\"q\\\\"');
  const a = parsed.get('a');
  assert.ok(a !== undefined && !('items' in a) && a.item.type === 'bytes', 'a is a byte sequence');
  assert.deepEqual(Buffer.from(a.item.value), raw);
  assert.deepEqual(
    [parsed.get('b'), parsed.get('c')].map(
      (member) => member !== undefined && !('items' in member) && member.item,
    ),
    [
      { type: 'boolean', value: false },
      { type: 'decimal', value: 1.5 },
    ],
  );
  for (const broken of [
    'a=(',
    'a="open',
    'a=:AAA',
    'a=1,',
    'A=1',
    'a=("x""y")',
    'a=?2',
    'a=1234567890123456',
  ]) {
    assert.throws(() => parseDictionary(broken), { name: 'StructuredFieldError' }, broken);
  }
});
