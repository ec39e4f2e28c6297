// The Idempotency-Key request header (draft-ietf-httpapi-idempotency-key-header): an Item Structured
// Field whose value is a String (RFC 9651: `"..."`, printable ASCII, `\"` and `\\` escaped). Many clients
// send the bare value instead (`Idempotency-Key: 8e03978e-...`): accepted too, as the same key, when it
// is visible ASCII without a quote or a backslash (docs/decisions.md, "Issue 40: real clients unchanged").
import type { FastifyRequest } from 'fastify';
import { apiError } from '../domain/errors.ts';
import { header } from './tpp-headers.ts';

/** The longest key kept (after unquoting): a UUID is 36 characters; 255 leaves room for any scheme. */
const MAX_KEY_LENGTH = 255;

const SF_STRING = /^"((?:[ !#-[\]-~]|\\["\\])*)"$/;
const BARE = /^[!#-[\]-~]+$/;

/** The request's Idempotency-Key, unquoted; undefined without the header; 400 when it is malformed. */
export function idempotencyKeyOf(request: FastifyRequest): string | undefined {
  const value = header(request, 'idempotency-key');
  if (value === undefined) return undefined;
  const quoted = SF_STRING.exec(value);
  const key = quoted !== null ? quoted[1]!.replace(/\\(["\\])/g, '$1') : BARE.test(value) ? value : undefined;
  if (key === undefined || key.length === 0 || key.length > MAX_KEY_LENGTH) {
    throw apiError(
      'FORMAT_ERROR',
      `header Idempotency-Key must be a Structured Field string ("..." of printable ASCII) or a bare value of visible ASCII, 1 to ${MAX_KEY_LENGTH} characters`,
      'Idempotency-Key',
    );
  }
  return key;
}
