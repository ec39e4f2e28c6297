// verifyNotification: is a status notification the gateway's, unchanged and recent? It checks what the
// gateway signs (RFC 9421, label-independent): the signature covers @method, @target-uri and
// content-digest with a created time; Content-Digest (RFC 9530) matches the body's bytes; created is
// within the tolerance; the key its keyid names is in the gateway's JWKS (GET /.well-known/jwks.json) and
// verifies the signature over the signature base (RFC 9421 2.5), ECDSA P-256 with SHA-256 (raw r||s,
// as Web Crypto verifies it). Web Crypto only, so it runs wherever the client runs.
import {
  type BareItem,
  type InnerList,
  isInnerList,
  parseDictionary,
  StructuredFieldError,
  serializeInnerList,
} from './structured-fields.ts';

/** The components every notification's signature must cover. */
export const REQUIRED_COMPONENTS = ['@method', '@target-uri', 'content-digest'] as const;
const ALGORITHM = 'ecdsa-p256-sha256';

/** The delivery as the TPP's server received it. */
export interface NotificationDelivery {
  readonly method: string;
  /**
   * The full URL the gateway POSTed to: the TPP-Notification-URI the TPP gave (behind a proxy, not the
   * URL the TPP's server sees).
   */
  readonly url: string;
  /** The request's headers: a fetch Headers, or a record of lower- or mixed-case names (node:http's). */
  readonly headers: Headers | Readonly<Record<string, string | readonly string[] | undefined>>;
  /** The body's exact bytes (a string is taken as its UTF-8 bytes). */
  readonly body: Uint8Array | ArrayBuffer | string;
}

/** A public key of the gateway's JWKS. */
export interface NotificationKey {
  readonly kty: string;
  readonly crv?: string;
  readonly x?: string;
  readonly y?: string;
  readonly kid?: string;
  readonly alg?: string;
  readonly use?: string;
}

export interface NotificationKeySet {
  readonly keys: readonly NotificationKey[];
}

export interface VerifyNotificationOptions {
  /** How old the signature may be, seconds (default 300). */
  readonly maxAgeSeconds?: number;
  /** How far in the future created may be (the gateway's clock ahead of the TPP's), seconds (default 60). */
  readonly clockSkewSeconds?: number;
  /** Now; the real time by default. */
  readonly now?: () => Date;
}

export interface VerifiedNotification {
  readonly ok: true;
  /** The kid of the key that signed it. */
  readonly keyId: string;
  /** When the gateway signed it. */
  readonly created: Date;
}

export type NotificationVerificationCode =
  /** No Signature or Signature-Input header, or no signature covering the required components. */
  | 'SIGNATURE_MISSING'
  /** A signature header is not a structured field of the expected shape. */
  | 'SIGNATURE_MALFORMED'
  /** The signature covers components this verifier cannot rebuild (component parameters). */
  | 'COMPONENT_UNSUPPORTED'
  /** The signature has no created parameter. */
  | 'CREATED_MISSING'
  /** created is older than maxAgeSeconds, or expires has passed. */
  | 'SIGNATURE_EXPIRED'
  /** created is later than now plus clockSkewSeconds. */
  | 'CREATED_IN_FUTURE'
  /** No keyid, or none of the JWKS's keys has it. */
  | 'KEY_UNKNOWN'
  /** The signature's alg or the key is not ECDSA P-256 (ES256). */
  | 'ALGORITHM_UNSUPPORTED'
  /** No Content-Digest with sha-256 or sha-512. */
  | 'DIGEST_MISSING'
  /** Content-Digest does not match the body. */
  | 'DIGEST_MISMATCH'
  /** The signature does not verify with the key: the method, URL, digest or parameters were changed. */
  | 'SIGNATURE_INVALID';

export class NotificationVerificationError extends Error {
  override readonly name = 'NotificationVerificationError';
  constructor(
    readonly code: NotificationVerificationCode,
    message: string,
  ) {
    super(message);
  }
}

const fail = (code: NotificationVerificationCode, message: string): never => {
  throw new NotificationVerificationError(code, message);
};

/**
 * Verifies a delivery against the gateway's key set; answers `{ ok: true, keyId, created }` or throws
 * a NotificationVerificationError whose `code` names what failed.
 */
export async function verifyNotification(
  delivery: NotificationDelivery,
  jwks: NotificationKeySet,
  options: VerifyNotificationOptions = {},
): Promise<VerifiedNotification> {
  const header = headerReader(delivery.headers);
  const [signature, input] = signatureToCheck(header);
  const params = input.params;
  const created = integerParam(params.get('created'));
  if (created === undefined) fail('CREATED_MISSING', 'the signature has no created parameter');
  const now = Math.floor((options.now?.() ?? new Date()).getTime() / 1000);
  if (now - created! > (options.maxAgeSeconds ?? 300))
    fail('SIGNATURE_EXPIRED', 'the signature was created too long ago');
  if (created! - now > (options.clockSkewSeconds ?? 60))
    fail('CREATED_IN_FUTURE', 'the signature was created in the future');
  const expires = integerParam(params.get('expires'));
  if (expires !== undefined && now > expires) fail('SIGNATURE_EXPIRED', 'the signature has expired');
  const alg = params.get('alg');
  if (alg !== undefined && (alg.type !== 'string' || alg.value !== ALGORITHM))
    fail('ALGORITHM_UNSUPPORTED', `the signature's alg is not ${ALGORITHM}`);
  const keyId = params.get('keyid');
  if (keyId?.type !== 'string') return fail('KEY_UNKNOWN', 'the signature has no keyid');
  const jwk = jwks.keys.find((key) => key.kid === keyId.value);
  if (jwk === undefined) return fail('KEY_UNKNOWN', 'no key of the key set has the signature’s keyid');
  if (jwk.kty !== 'EC' || jwk.crv !== 'P-256' || (jwk.alg !== undefined && jwk.alg !== 'ES256'))
    fail('ALGORITHM_UNSUPPORTED', 'the key is not an EC P-256 (ES256) key');
  await checkDigest(header('content-digest'), bytesOf(delivery.body));
  const base = signatureBase(delivery, header, input);
  const key = await crypto.subtle.importKey(
    'jwk',
    { kty: 'EC', crv: 'P-256', x: jwk.x, y: jwk.y, ext: true },
    { name: 'ECDSA', namedCurve: 'P-256' },
    false,
    ['verify'],
  );
  const valid = await crypto.subtle.verify(
    { name: 'ECDSA', hash: 'SHA-256' },
    key,
    signature as Uint8Array<ArrayBuffer>,
    new TextEncoder().encode(base),
  );
  if (!valid) fail('SIGNATURE_INVALID', 'the signature does not verify with the key');
  return { ok: true, keyId: keyId.value, created: new Date(created! * 1000) };
}

type HeaderReader = (name: string) => string | undefined;

/** A header's value by its lower-case name; several field lines joined as RFC 9421 2.1 joins them. */
function headerReader(headers: NotificationDelivery['headers']): HeaderReader {
  if (typeof (headers as Headers).get === 'function') {
    const fetched = headers as Headers;
    return (name) => fetched.get(name) ?? undefined;
  }
  const record = new Map<string, string[]>();
  for (const [name, value] of Object.entries(headers as Record<string, string | readonly string[]>)) {
    if (value === undefined) continue;
    const values = record.get(name.toLowerCase()) ?? [];
    values.push(...[value].flat());
    record.set(name.toLowerCase(), values);
  }
  return (name) => {
    const values = record.get(name);
    return values === undefined ? undefined : values.map((value) => value.trim()).join(', ');
  };
}

/** The first signature (by label) that covers the required components, and its Signature-Input. */
function signatureToCheck(header: HeaderReader): [Uint8Array, InnerList] {
  const signatures = header('signature');
  const inputs = header('signature-input');
  if (signatures === undefined || inputs === undefined)
    return fail('SIGNATURE_MISSING', 'no Signature or Signature-Input header');
  const [signatureDictionary, inputDictionary] = parsed(() => [
    parseDictionary(signatures),
    parseDictionary(inputs),
  ]);
  for (const [label, input] of inputDictionary) {
    if (!isInnerList(input)) return fail('SIGNATURE_MALFORMED', `Signature-Input ${label} is no inner list`);
    const covered = input.items.map(({ item }) => (item.type === 'string' ? item.value : ''));
    if (!REQUIRED_COMPONENTS.every((component) => covered.includes(component))) continue;
    const signature = signatureDictionary.get(label);
    if (signature === undefined || isInnerList(signature) || signature.item.type !== 'bytes')
      return fail('SIGNATURE_MALFORMED', `Signature has no byte sequence labelled ${label}`);
    return [signature.item.value, input];
  }
  return fail('SIGNATURE_MISSING', `no signature covers ${REQUIRED_COMPONENTS.join(', ')}`);
}

function parsed<T>(parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    if (error instanceof StructuredFieldError) return fail('SIGNATURE_MALFORMED', error.message);
    throw error;
  }
}

function integerParam(value: BareItem | undefined): number | undefined {
  return value?.type === 'integer' ? value.value : undefined;
}

/** RFC 9421 2.5: each covered component's line, then @signature-params; no newline at the end. */
function signatureBase(delivery: NotificationDelivery, header: HeaderReader, input: InnerList): string {
  const lines = input.items.map(({ item, params }) => {
    if (item.type !== 'string') return fail('SIGNATURE_MALFORMED', 'a covered component is not a string');
    if (params.size > 0)
      return fail('COMPONENT_UNSUPPORTED', `component parameters are not supported (${item.value})`);
    return `"${item.value}": ${componentValue(item.value, delivery, header)}`;
  });
  lines.push(`"@signature-params": ${serializeInnerList(input)}`);
  return lines.join('\n');
}

function componentValue(name: string, delivery: NotificationDelivery, header: HeaderReader): string {
  if (!name.startsWith('@')) {
    const value = header(name);
    return value ?? fail('SIGNATURE_INVALID', `the signed header ${name} is missing`);
  }
  const url = new URL(delivery.url);
  switch (name) {
    case '@method':
      return delivery.method.toUpperCase();
    case '@target-uri':
      // WHATWG's form, as the gateway signs it: the URL as the TPP wrote it need not be byte-equal.
      return url.href;
    case '@authority':
      return url.host.toLowerCase();
    case '@scheme':
      return url.protocol.slice(0, -1).toLowerCase();
    case '@path':
      return url.pathname;
    case '@query':
      return url.search === '' ? '?' : url.search;
    case '@request-target':
      return url.pathname + url.search;
    default:
      return fail('COMPONENT_UNSUPPORTED', `the derived component ${name} is not supported`);
  }
}

const DIGESTS = { 'sha-256': 'SHA-256', 'sha-512': 'SHA-512' } as const;

/** RFC 9530: every digest of a known algorithm in Content-Digest matches the body; at least one is there. */
async function checkDigest(value: string | undefined, body: Uint8Array): Promise<void> {
  if (value === undefined) return fail('DIGEST_MISSING', 'no Content-Digest header');
  const dictionary = parsed(() => parseDictionary(value));
  let checked = 0;
  for (const [algorithm, hash] of Object.entries(DIGESTS)) {
    const member = dictionary.get(algorithm);
    if (member === undefined) continue;
    if (isInnerList(member) || member.item.type !== 'bytes')
      return fail('SIGNATURE_MALFORMED', `Content-Digest's ${algorithm} is no byte sequence`);
    const actual = new Uint8Array(await crypto.subtle.digest(hash, body as Uint8Array<ArrayBuffer>));
    if (!sameBytes(actual, member.item.value))
      fail('DIGEST_MISMATCH', `Content-Digest's ${algorithm} does not match the body`);
    checked++;
  }
  if (checked === 0) fail('DIGEST_MISSING', 'Content-Digest has neither sha-256 nor sha-512');
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let index = 0; index < a.length; index++) difference |= a[index]! ^ b[index]!;
  return difference === 0;
}

function bytesOf(body: NotificationDelivery['body']): Uint8Array {
  if (typeof body === 'string') return new TextEncoder().encode(body);
  return body instanceof Uint8Array ? body : new Uint8Array(body);
}
