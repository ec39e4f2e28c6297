// Expectations on an answer: each throws a Deviation that says what the contract wants and what came,
// short enough for one row of the table.
import { Deviation } from './check.ts';
import type { Answer } from './http.ts';

type Json = Record<string, unknown>;

/**
 * An answer in a few words: its status and what its error body says (code and text, whole enough to
 * keep a hint), else the start of its body. A 404, 405 or 415 is about the path asked for, which is
 * named: a form or JSON body the contract names refused as 415 means the path reached another
 * endpoint than the contract's, and a 404 without an error body of the contract a path this server
 * does not have; either way the base URL is the first suspect.
 */
export function summary(answer: Answer): string {
  const said = errorSaid(answer.json);
  const { method, path, mediaType } = answer.asked;
  const at = [404, 405, 415].includes(answer.status) ? ` at ${method} ${path}` : '';
  const suspect = 'is --base-url right?';
  if (said === undefined) {
    const body = answer.text.trim();
    const shownBody = body === '' ? '(no body)' : clip(body);
    if (answer.status === 404) return `404${at}: no such path here (${suspect}): ${shownBody}`;
    return `${answer.status}${at} ${shownBody}`;
  }
  const text = `${answer.status} ${said.code}${at}: ${clip(said.text, 300)}`;
  if (answer.status === 415 && mediaType !== undefined)
    return `${text} (the ${mediaType} body the contract names was refused: the path reached another endpoint; ${suspect})`;
  return text;
}

/** The code and text of an error body of the contract: the API's first tppMessage, or OAuth's error. */
function errorSaid(json: unknown): { code: string; text: string } | undefined {
  if (json === null || typeof json !== 'object') return undefined;
  const body = json as Json;
  if (typeof body.error === 'string')
    return {
      code: body.error,
      text: typeof body.error_description === 'string' ? body.error_description : '',
    };
  const first = Array.isArray(body.tppMessages) ? (body.tppMessages[0] as Json | undefined) : undefined;
  if (typeof first?.code !== 'string') return undefined;
  const text = typeof first.text === 'string' ? first.text : body.moreInformation;
  return { code: first.code, text: typeof text === 'string' ? text : '' };
}

export function clip(text: string, length = 160): string {
  const flat = text.replace(/\s+/g, ' ');
  return flat.length > length ? `${flat.slice(0, length - 1)}…` : flat;
}

/** A value in a few words: its JSON, or what it is not. */
export function shown(value: unknown): string {
  if (value === undefined) return 'missing';
  return clip(JSON.stringify(value) ?? String(value), 60);
}

function expectStatus(answer: Answer, expected: number, what = ''): void {
  if (answer.status !== expected)
    throw new Deviation(`${expected}${what === '' ? '' : ` ${what}`}`, summary(answer));
}

/** The body as a JSON object, sent as application/json; the status checked first. */
export function jsonBody(answer: Answer, status: number, what = ''): Json {
  expectStatus(answer, status, what);
  if (!/^application\/([\w.+-]+\+)?json\b/i.test(answer.contentType)) {
    throw new Deviation(
      `${status} with Content-Type application/json`,
      `Content-Type ${shown(answer.contentType || undefined)}`,
    );
  }
  if (answer.json === null || typeof answer.json !== 'object' || Array.isArray(answer.json)) {
    throw new Deviation(`${status} with a JSON object`, summary(answer));
  }
  return answer.json as Json;
}

/** The value at a dotted path (`scaMethods.0._links.authorization`). */
export function at(body: unknown, path: string): unknown {
  let value = body;
  for (const key of path.split('.')) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Json)[key];
  }
  return value;
}

/** The field names beside a missing one, so that a misspelt field shows. */
function siblings(body: unknown, path: string): string {
  const parent = path.includes('.') ? at(body, path.slice(0, path.lastIndexOf('.'))) : body;
  if (parent === null || typeof parent !== 'object') return '';
  return ` (fields: ${Object.keys(parent).sort().join(', ') || 'none'})`;
}

function fieldDeviation(body: unknown, path: string, wanted: string): Deviation {
  const value = at(body, path);
  return new Deviation(
    `${path}: ${wanted}`,
    `${path}: ${shown(value)}${value === undefined ? siblings(body, path) : ''}`,
  );
}

export function expectString(body: unknown, path: string): string {
  const value = at(body, path);
  if (typeof value !== 'string' || value === '') throw fieldDeviation(body, path, 'a non-empty string');
  return value;
}

export function expectInteger(body: unknown, path: string): number {
  const value = at(body, path);
  if (typeof value !== 'number' || !Number.isInteger(value)) throw fieldDeviation(body, path, 'an integer');
  return value;
}

export function expectArray(body: unknown, path: string): unknown[] {
  const value = at(body, path);
  if (!Array.isArray(value) || value.length === 0) throw fieldDeviation(body, path, 'a non-empty array');
  return value;
}

export function expectValue(body: unknown, path: string, expected: unknown): void {
  if (at(body, path) !== expected) throw fieldDeviation(body, path, JSON.stringify(expected));
}

export function expectOneOf(body: unknown, path: string, allowed: readonly string[]): string {
  const value = at(body, path);
  if (typeof value !== 'string' || !allowed.includes(value))
    throw fieldDeviation(body, path, `one of ${allowed.join(', ')}`);
  return value;
}

export function expectAbsent(body: unknown, path: string, why: string): void {
  const value = at(body, path);
  if (value !== undefined) throw new Deviation(`no ${path} (${why})`, `${path}: ${shown(value)}`);
}

/** An access token response (spec Resources "Access token response"): answers the token. */
export function expectAccessToken(body: unknown): string {
  const token = expectString(body, 'access_token');
  expectValue(body, 'token_type', 'Bearer');
  expectInteger(body, 'expires_in');
  return token;
}
