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
const OPEN_ARRAY = 0x5b;
const OPEN_OBJECT = 0x7b;
const CLOSE_ARRAY = 0x5d;
const CLOSE_OBJECT = 0x7d;

/**
 * Whether the JSON text opens more than `limit` arrays and objects inside each other, brackets within
 * strings aside. One pass over the text, no recursion and no allocation; a string is jumped over with
 * indexOf. The text need not be valid JSON (the parser decides that afterwards): an unterminated
 * string ends the scan.
 */
export function nestsDeeperThan(text: string, limit: number): boolean {
  // Fewer brackets than the limit cannot open more than it: most bodies (a payment has a handful) are
  // answered by indexOf, which runs natively, without the character loop.
  if (bracketsAtMost(text, limit)) return false;
  let depth = 0;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code === QUOTE) {
      index = closingQuote(text, index);
      if (index === -1) return false;
    } else if (code === OPEN_ARRAY || code === OPEN_OBJECT) {
      if (++depth > limit) return true;
    } else if ((code === CLOSE_ARRAY || code === CLOSE_OBJECT) && depth > 0) depth--;
  }
  return false;
}

/** Where the string opened at `open` ends: the next quote after an even run of backslashes; or -1. */
function closingQuote(text: string, open: number): number {
  for (let at = text.indexOf('"', open + 1); at !== -1; at = text.indexOf('"', at + 1)) {
    let backslashes = 0;
    while (text.charCodeAt(at - 1 - backslashes) === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return at;
  }
  return -1;
}

function bracketsAtMost(text: string, limit: number): boolean {
  let count = 0;
  for (const bracket of ['[', '{']) {
    for (let at = text.indexOf(bracket); at !== -1; at = text.indexOf(bracket, at + 1))
      if (++count > limit) return false;
  }
  return true;
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
