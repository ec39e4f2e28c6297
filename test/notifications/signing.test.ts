// The notification signer (services/notifications/signing.ts): the headers it adds, checked by a verifier
// written here from RFC 9421 2.5 and RFC 9530 with node:crypto alone (so that the library's own round
// trip cannot hide a wrong base), by the typed client's verifyNotification, and by the library's verifier;
// the kid as RFC 7638 computes it; rotation (a retired key published after the current one).
import assert from 'node:assert/strict';
import { createHash, createPublicKey, generateKeyPairSync, type KeyObject, verify } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { NotificationVerificationError, verifyNotification } from '@psd2-gateway/client';
import { createVerifier, httpbis } from 'http-message-signatures';
import { type NotificationSigner, openNotificationSigner } from '../../src/services/notifications/signing.ts';
import type { Db } from '../../src/store/database.ts';

const URL_ = 'https://tpp.example/hooks/psd2?app=1';
const BODY = Buffer.from('{"notificationId":"n-1","status":"ACSC","name":"Åsa"}');
const CREATED = new Date('2026-03-01T12:00:00.000Z');
const SECONDS = CREATED.getTime() / 1000;
/** Configured keys are never looked up in the database. */
const NO_DATABASE = {} as Db;

let dir: string;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'psd2-signing-'));
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function keyFile(name: string, key: KeyObject): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, key.export({ format: 'pem', type: key.type === 'private' ? 'pkcs8' : 'spki' }));
  return path;
}

const p256 = () => generateKeyPairSync('ec', { namedCurve: 'P-256' });

async function signerWith(current: KeyObject, retired: KeyObject[] = []): Promise<NotificationSigner> {
  return openNotificationSigner(
    {
      notificationSigningKey: await keyFile(`current-${Math.random()}.pem`, current),
      notificationSigningKeysRetired: await Promise.all(
        retired.map((key, index) => keyFile(`retired-${index}-${Math.random()}.pem`, key)),
      ),
    },
    NO_DATABASE,
    { now: () => CREATED },
  );
}

/** RFC 7638 written out: the required members of an EC key in lexicographic order. */
function thumbprint(key: KeyObject): string {
  const { crv, kty, x, y } = key.export({ format: 'jwk' });
  return createHash('sha256')
    .update(`{"crv":"${crv}","kty":"${kty}","x":"${x}","y":"${y}"}`)
    .digest('base64url');
}

test('the headers: the digest of the exact bytes, the covered components and parameters, a 64-byte r||s', async () => {
  const { privateKey, publicKey } = p256();
  const signer = await signerWith(privateKey);
  const kid = thumbprint(publicKey);
  const headers = await signer.sign({ method: 'POST', url: URL_, body: BODY });
  const digest = createHash('sha256').update(BODY).digest('base64');
  const signature = /^sig1=:([A-Za-z0-9+/=]+):$/.exec(headers.signature ?? '')?.[1];
  assert.ok(signature !== undefined, headers.signature);
  assert.deepEqual(headers, {
    'content-type': 'application/json',
    'content-digest': `sha-256=:${digest}:`,
    'signature-input': `sig1=("@method" "@target-uri" "content-digest");created=${SECONDS};keyid="${kid}";alg="ecdsa-p256-sha256"`,
    signature: `sig1=:${signature}:`,
  });
  assert.equal(Buffer.from(signature, 'base64').length, 64);
  assert.equal(await signer.keyId(), kid);

  // RFC 9421 2.5, by hand: one line per covered component, then @signature-params, no final newline.
  const base = [
    '"@method": POST',
    `"@target-uri": ${URL_}`,
    `"content-digest": sha-256=:${digest}:`,
    `"@signature-params": ("@method" "@target-uri" "content-digest");created=${SECONDS};keyid="${kid}";alg="ecdsa-p256-sha256"`,
  ].join('\n');
  const raw = Buffer.from(signature, 'base64');
  assert.equal(verify('sha256', Buffer.from(base), { key: publicKey, dsaEncoding: 'ieee-p1363' }, raw), true);
  // Not DER, as RFC 9421 3.3.4 asks: a DER verifier refuses the same bytes.
  assert.equal(verify('sha256', Buffer.from(base), publicKey, raw), false);
  // Another base (a changed URL) does not verify: the check above can fail.
  const other = base.replace(URL_, 'https://tpp.example/elsewhere');
  assert.equal(
    verify('sha256', Buffer.from(other), { key: publicKey, dsaEncoding: 'ieee-p1363' }, raw),
    false,
  );
});

test('the JWKS: the current key first, public parts only, kid = RFC 7638 thumbprint; retired keys after it', async () => {
  const current = p256();
  const retiredPrivate = p256();
  const retiredPublic = p256();
  const signer = await signerWith(current.privateKey, [
    retiredPrivate.privateKey,
    retiredPublic.publicKey,
    current.publicKey,
  ]);
  const jwk = (key: KeyObject) => {
    const { x, y } = key.export({ format: 'jwk' });
    return { kty: 'EC', crv: 'P-256', x, y, kid: thumbprint(key), alg: 'ES256', use: 'sig' };
  };
  assert.deepEqual(await signer.jwks(), {
    keys: [jwk(current.publicKey), jwk(retiredPrivate.publicKey), jwk(retiredPublic.publicKey)],
  });
  // The JWK's x and y are the public key's own: node:crypto reads the published JWK back to it.
  const published = (await signer.jwks()).keys[0]!;
  const read = createPublicKey({
    key: { kty: 'EC', crv: 'P-256', x: published.x, y: published.y },
    format: 'jwk',
  });
  assert.equal(read.equals(current.publicKey), true);
});

test('round trip: the client verifies what the signer signs, and so does the library', async () => {
  const { privateKey } = p256();
  const signer = await signerWith(privateKey);
  const headers = await signer.sign({ method: 'POST', url: URL_, body: BODY });
  const jwks = await signer.jwks();
  assert.deepEqual(
    await verifyNotification({ method: 'POST', url: URL_, headers, body: BODY }, jwks, {
      now: () => CREATED,
    }),
    { ok: true, keyId: jwks.keys[0]!.kid, created: CREATED },
  );
  const libraryVerified = await httpbis.verifyMessage(
    {
      keyLookup: async ({ keyid }) =>
        keyid === jwks.keys[0]!.kid
          ? {
              id: keyid,
              algs: ['ecdsa-p256-sha256'],
              verify: createVerifier(
                createPublicKey({ key: { ...jwks.keys[0]! }, format: 'jwk' }),
                'ecdsa-p256-sha256',
              ),
            }
          : null,
      requiredFields: ['@method', '@target-uri', 'content-digest'],
      requiredParams: ['created', 'keyid'],
      notAfter: SECONDS,
    },
    { method: 'POST', url: URL_, headers },
  );
  assert.equal(libraryVerified, true);
});

test('rotation: a delivery signed with the retired key verifies while it is published, and not after', async () => {
  const old = p256();
  const fresh = p256();
  const before = await signerWith(old.privateKey);
  const signedBefore = await before.sign({ method: 'POST', url: URL_, body: BODY });
  const during = await signerWith(fresh.privateKey, [old.publicKey]);
  const delivery = { method: 'POST', url: URL_, headers: signedBefore, body: BODY };
  const verified = await verifyNotification(delivery, await during.jwks(), { now: () => CREATED });
  assert.equal(verified.keyId, thumbprint(old.publicKey));
  const signedDuring = await during.sign({ method: 'POST', url: URL_, body: BODY });
  assert.equal(
    (
      await verifyNotification({ ...delivery, headers: signedDuring }, await during.jwks(), {
        now: () => CREATED,
      })
    ).keyId,
    thumbprint(fresh.publicKey),
  );
  const afterwards = await signerWith(fresh.privateKey);
  await assert.rejects(
    verifyNotification(delivery, await afterwards.jwks(), { now: () => CREATED }),
    (error: unknown) => error instanceof NotificationVerificationError && error.code === 'KEY_UNKNOWN',
  );
});

test('jwks is the same object each time; sign uses the time it is given', async () => {
  const { privateKey } = p256();
  const times = [new Date('2026-03-01T12:00:00Z'), new Date('2026-03-01T12:00:07Z')];
  const signer = await openNotificationSigner(
    { notificationSigningKey: await keyFile('times.pem', privateKey), notificationSigningKeysRetired: [] },
    NO_DATABASE,
    { now: () => times.shift()! },
  );
  const first = await signer.sign({ method: 'POST', url: URL_, body: BODY });
  const second = await signer.sign({ method: 'POST', url: URL_, body: BODY });
  assert.match(first['signature-input']!, /;created=1772366400;/);
  assert.match(second['signature-input']!, /;created=1772366407;/);
  assert.equal(await signer.jwks(), await signer.jwks());
});
