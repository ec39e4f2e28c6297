// Secrets (tokens, codes, session ids) are random with 256 bits, handed out once and stored only as
// SHA-256 hashes; comparisons of secret material are constant-time.
import { createHash, hash, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';

export function newSecret(): string {
  return randomBytes(32).toString('base64url');
}

// crypto.hash, one call per digest: a quarter of createHash's time on the short inputs hashed on
// every request (issue 18).
export function hashSecret(secret: string): string {
  return hash('sha256', secret, 'hex');
}

/** Constant-time equality of two strings (the lengths may leak; the contents do not). */
export function constantEquals(a: string, b: string): boolean {
  const left = hash('sha256', a, 'buffer');
  const right = hash('sha256', b, 'buffer');
  return timingSafeEqual(left, right) && a.length === b.length;
}

/** Identifiers of resources: UUIDs (122 random bits). */
export function newId(): string {
  return randomUUID();
}

/** Sandbox app ids are UUIDs without dashes (spec: app and subscription). */
export function newSandboxClientId(): string {
  return randomUUID().replaceAll('-', '');
}

/** A stable fingerprint of a JSON value: keys sorted at every depth, then SHA-256. */
export function fingerprint(value: unknown): string {
  return hash('sha256', canonicalJson(value), 'hex');
}

/**
 * The canonical text: JSON with every object's keys in UTF-16 code unit order and members whose value is
 * undefined left out. A fingerprint is taken of every state-changing request's body (a basket's is
 * 20 payments), so plain data (what JSON.parse gives) is copied with its keys in that order and written
 * by JSON.stringify, half the time of building the text piece by piece (issue 18). Anything else
 * (integer-like keys, which objects keep in numeric order; `__proto__`; functions, symbols, class
 * instances) is written piece by piece, as always: both give the same text for the same value.
 */
function canonicalJson(value: unknown): string {
  const sorted = sortedCopy(value);
  return sorted === NOT_PLAIN ? canonicalText(value) : (JSON.stringify(sorted) ?? 'null');
}

const NOT_PLAIN = Symbol('not plain JSON data');

function sortedCopy(value: unknown): unknown {
  if (value === null) return null;
  switch (typeof value) {
    case 'string':
    case 'boolean':
    case 'number':
    case 'undefined':
      return value;
    case 'object':
      break;
    default:
      return NOT_PLAIN;
  }
  if (Array.isArray(value)) {
    const items = new Array<unknown>(value.length);
    for (let index = 0; index < value.length; index++) {
      const item = sortedCopy(value[index]);
      if (item === NOT_PLAIN) return NOT_PLAIN;
      items[index] = item;
    }
    return items;
  }
  const prototype: unknown = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) return NOT_PLAIN;
  const record = value as Record<string, unknown>;
  const keys = Object.keys(record);
  for (const key of keys) {
    const first = key.charCodeAt(0);
    if ((first >= 48 && first <= 57) || key === '__proto__') return NOT_PLAIN;
  }
  sortKeys(keys);
  const copy: Record<string, unknown> = {};
  for (const key of keys) {
    const item = record[key];
    if (item === undefined) continue;
    const sorted = sortedCopy(item);
    if (sorted === NOT_PLAIN) return NOT_PLAIN;
    copy[key] = sorted;
  }
  return copy;
}

function canonicalText(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) {
    let text = '[';
    for (let index = 0; index < value.length; index++) {
      if (index > 0) text += ',';
      text += canonicalText(value[index]);
    }
    return `${text}]`;
  }
  const record = value as Record<string, unknown>;
  const keys = sortKeys(Object.keys(record));
  let text = '{';
  for (const key of keys) {
    const item = record[key];
    if (item === undefined) continue;
    if (text.length > 1) text += ',';
    text += `${JSON.stringify(key)}:${canonicalText(item)}`;
  }
  return `${text}}`;
}

/** Up to this many keys are sorted by insertion; more by Array.sort (insertion is quadratic). */
const INSERTION_SORTED = 16;

/**
 * The keys in UTF-16 code unit order (Array.sort's default), in place. A fingerprint is taken of every
 * state-changing request's body, and Array.sort allocates a work area on every call: that was a fifth
 * of an initiation's allocations (issue 18). Request objects are small; insertion allocates nothing.
 */
function sortKeys(keys: string[]): string[] {
  if (keys.length > INSERTION_SORTED) return keys.sort();
  for (let index = 1; index < keys.length; index++) {
    const key = keys[index]!;
    let at = index;
    while (at > 0 && keys[at - 1]! > key) {
      keys[at] = keys[at - 1]!;
      at--;
    }
    keys[at] = key;
  }
  return keys;
}

/** PKCE S256 (RFC 7636): BASE64URL(SHA256(code_verifier)). */
export function pkceChallenge(verifier: string): string {
  return createHash('sha256').update(verifier, 'ascii').digest('base64url');
}
