// JSON bodies, with their nesting bounded before anything walks them. V8's JSON.parse takes any
// depth, but every walk of a body after it (the text guard, the set-aside of unknown fields, the
// schema check, the fingerprint of an idempotent request) goes down member by member: about 130,000
// `[` overflowed the stack and answered 500 (issue 37). A body nested deeper than MAX_JSON_DEPTH is
// refused as FORMAT_ERROR by one scan of the raw text, without recursion, before it is parsed; no
// route's body nests more than a few levels.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { apiError, OAuthError } from '../domain/errors.ts';
import { isOAuthRoute } from './errors.ts';

/** The deepest nesting of arrays and objects a JSON body may have (documented in docs/decisions.md). */
export const MAX_JSON_DEPTH = 32;

const TOO_DEEP_TEXT = `the body is nested deeper than ${MAX_JSON_DEPTH} levels of arrays and objects`;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPENS = new Set([0x5b, 0x7b]); // [ {
const CLOSES = new Set([0x5d, 0x7d]); // ] }

/**
 * Whether the JSON text opens more than `limit` arrays and objects inside each other, brackets within
 * strings aside. One pass over the text, no recursion and no allocation; the text need not be valid
 * JSON (the parser decides that afterwards).
 */
export function nestsDeeperThan(text: string, limit: number): boolean {
  // Fewer characters than the limit cannot open more than it.
  if (text.length <= limit) return false;
  let depth = 0;
  let inString = false;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (inString) {
      if (code === BACKSLASH) index++;
      else if (code === QUOTE) inString = false;
    } else if (code === QUOTE) inString = true;
    else if (OPENS.has(code)) {
      if (++depth > limit) return true;
    } else if (CLOSES.has(code) && depth > 0) depth--;
  }
  return false;
}

function tooDeep(request: FastifyRequest): Error {
  return isOAuthRoute(request)
    ? new OAuthError('invalid_request', TOO_DEEP_TEXT)
    : apiError('FORMAT_ERROR', TOO_DEEP_TEXT);
}

type JsonParser = (
  request: FastifyRequest,
  body: string,
  done: (error: Error | null, body?: unknown) => void,
) => void;

/** The parser behind the depth scan: a body nested too deep is refused before `parse` sees it. */
export function depthBounded(parse: JsonParser): JsonParser {
  return (request, body, done) => {
    if (nestsDeeperThan(body, MAX_JSON_DEPTH)) done(tooDeep(request), undefined);
    else parse(request, body, done);
  };
}

/** Replaces Fastify's JSON parser with the same parser (proto poisoning refused) behind the depth scan. */
export function registerJsonBody(app: FastifyInstance): void {
  const parse = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, depthBounded(parse));
}
