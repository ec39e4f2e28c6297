// The bank's signature on each status notification (issue 41): an HTTP Message Signature (RFC 9421,
// built by http-message-signatures) over @method, @target-uri and content-digest (RFC 9530, SHA-256 of
// the exact body bytes), with the parameters created, keyid and alg, by an ES256 key (ecdsa-p256-sha256:
// the signature is r||s, IEEE P1363, as RFC 9421 3.3.4 asks, not DER). The public keys are published as a
// JWKS (GET /.well-known/jwks.json): the current key first, then the retired ones a rotation still
// publishes. keyid = the JWK's kid = its RFC 7638 thumbprint, so a TPP can recompute it from the JWK.
//
// The key: NOTIFICATION_SIGNING_KEY's PEM file (required live); without it, a key generated once and kept
// in the database (store/notification-signing-repository.ts), so every worker and restart signs alike.
import {
  createHash,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  type JsonWebKey,
  type KeyObject,
} from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createSigner, httpbis } from 'http-message-signatures';
import { type Config, ConfigError } from '../../config.ts';
import type { Db } from '../../store/database.ts';
import { storedSigningKey } from '../../store/notification-signing-repository.ts';

/** RFC 9421's name of the algorithm (Signature-Input's alg), and JOSE's (the JWK's alg). */
export const SIGNATURE_ALGORITHM = 'ecdsa-p256-sha256';
const JWK_ALGORITHM = 'ES256';
/** The label of our signature in Signature and Signature-Input. */
export const SIGNATURE_LABEL = 'sig1';
/** What every notification's signature covers, in this order. */
export const COVERED_COMPONENTS = ['@method', '@target-uri', 'content-digest'] as const;

/** What is signed: the POST that will be sent, with the exact bytes of its body. */
export interface SignableRequest {
  readonly method: string;
  readonly url: string;
  readonly body: Buffer;
}

/** A public key as the JWKS publishes it. */
export interface PublishedKey {
  readonly kty: 'EC';
  readonly crv: 'P-256';
  readonly x: string;
  readonly y: string;
  readonly kid: string;
  readonly alg: typeof JWK_ALGORITHM;
  readonly use: 'sig';
}

export interface Jwks {
  readonly keys: readonly PublishedKey[];
}

export interface NotificationSigner {
  /** The kid of the key that signs now. */
  keyId(): Promise<string>;
  /**
   * The headers to add to the request, lower-case: content-type, content-digest, signature-input,
   * signature. The body must be sent exactly as given.
   */
  sign(request: SignableRequest): Promise<Record<string, string>>;
  /** The published keys: the current one first, then the retired ones. */
  jwks(): Promise<Jwks>;
}

interface SigningKeys {
  readonly privateKey: KeyObject;
  readonly current: PublishedKey;
  readonly jwks: Jwks;
}

export interface SignerOptions {
  /** The signature's created time; the real time by default (a TPP checks it against its own clock). */
  readonly now?: () => Date;
}

/**
 * Reads the configured key files now (a bad one stops the start with a ConfigError naming the setting);
 * the generated key of the sandbox is read from, or stored in, the database on first use.
 */
export async function openNotificationSigner(
  config: Pick<Config, 'notificationSigningKey' | 'notificationSigningKeysRetired'>,
  db: Db,
  options: SignerOptions = {},
): Promise<NotificationSigner> {
  const now = options.now ?? (() => new Date());
  const retired = await Promise.all(
    config.notificationSigningKeysRetired.map((path) =>
      readKeyFile('NOTIFICATION_SIGNING_KEYS_RETIRED', path, 'public'),
    ),
  );
  const configured =
    config.notificationSigningKey === undefined
      ? undefined
      : await readKeyFile('NOTIFICATION_SIGNING_KEY', config.notificationSigningKey, 'private');
  let loading: Promise<SigningKeys> | undefined =
    configured === undefined ? undefined : Promise.resolve(signingKeys(configured, retired));
  const keys = (): Promise<SigningKeys> => {
    if (loading !== undefined) return loading;
    const load = generatedKey(db).then((key) => signingKeys(key, retired));
    loading = load;
    // A failed read (the database away) is tried again by the next call.
    load.catch(() => {
      if (loading === load) loading = undefined;
    });
    return load;
  };
  return {
    keyId: async () => (await keys()).current.kid,
    jwks: async () => (await keys()).jwks,
    sign: async (request) => signRequest(await keys(), request, now()),
  };
}

async function signRequest(
  keys: SigningKeys,
  request: SignableRequest,
  created: Date,
): Promise<Record<string, string>> {
  const headers = {
    'content-type': 'application/json',
    'content-digest': contentDigest(request.body),
  };
  const signed = await httpbis.signMessage(
    {
      key: createSigner(keys.privateKey, SIGNATURE_ALGORITHM, keys.current.kid),
      name: SIGNATURE_LABEL,
      fields: [...COVERED_COMPONENTS],
      params: ['created', 'keyid', 'alg'],
      paramValues: { created },
    },
    // WHATWG's form of the URL (scheme and host lower-case, default port dropped, path at least /), as
    // verifyNotification rebuilds @target-uri from the URL the TPP gave: both sides agree on its text.
    { method: request.method, url: new URL(request.url).href, headers },
  );
  return Object.fromEntries(
    Object.entries(signed.headers).map(([name, value]) => [name.toLowerCase(), [value].flat().join(', ')]),
  );
}

/** RFC 9530's Content-Digest of the exact body bytes: `sha-256=:<base64>:`. */
function contentDigest(body: Buffer): string {
  return `sha-256=:${createHash('sha256').update(body).digest('base64')}:`;
}

function signingKeys(privateKey: KeyObject, retired: readonly KeyObject[]): SigningKeys {
  const current = publishedKey(createPublicKey(privateKey));
  const others = retired.map(publishedKey).filter((key) => key.kid !== current.kid);
  const unique = others.filter((key, index) => others.findIndex((other) => other.kid === key.kid) === index);
  return { privateKey, current, jwks: Object.freeze({ keys: Object.freeze([current, ...unique]) }) };
}

function publishedKey(publicKey: KeyObject): PublishedKey {
  const { x, y } = publicKey.export({ format: 'jwk' }) as Required<Pick<JsonWebKey, 'x' | 'y'>>;
  return Object.freeze({
    kty: 'EC',
    crv: 'P-256',
    x,
    y,
    kid: thumbprint(x, y),
    alg: JWK_ALGORITHM,
    use: 'sig',
  });
}

/** RFC 7638: SHA-256 of the required members in lexicographic order, no whitespace, base64url. */
function thumbprint(x: string, y: string): string {
  const canonical = JSON.stringify({ crv: 'P-256', kty: 'EC', x, y });
  return createHash('sha256').update(canonical).digest('base64url');
}

/** A key file a setting names: readable, PEM, an EC key on P-256 (private where it must sign). */
async function readKeyFile(setting: string, path: string, kind: 'private' | 'public'): Promise<KeyObject> {
  let pem: string;
  try {
    pem = await readFile(path, 'utf8');
  } catch {
    throw new ConfigError(setting, `cannot read the file ${path}`);
  }
  let key: KeyObject;
  try {
    key = kind === 'private' ? createPrivateKey(pem) : createPublicKey(pem);
  } catch {
    throw new ConfigError(
      setting,
      kind === 'private'
        ? `${path} holds no private key in PEM form (PKCS#8, EC P-256)`
        : `${path} holds no public or private key in PEM form (EC P-256)`,
    );
  }
  const curve = key.asymmetricKeyDetails?.namedCurve;
  if (key.asymmetricKeyType !== 'ec' || curve !== 'prime256v1')
    throw new ConfigError(
      setting,
      `${path} holds a ${key.asymmetricKeyType ?? 'unknown'}${curve === undefined ? '' : ` ${curve}`} key; notifications are signed with EC P-256 (ES256) keys`,
    );
  return key;
}

/** The sandbox's key: the one stored, or a fresh one stored now (whichever process stores first wins). */
async function generatedKey(db: Db): Promise<KeyObject> {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const fresh = privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
  return createPrivateKey(await storedSigningKey(db, fresh));
}
