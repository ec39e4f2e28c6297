// The two error bodies the contract's endpoints answer (API-NOTES "Error bodies"; the spec says "not
// shown"): RFC 6749 `{error, error_description}` on the OAuth and decoupled endpoints, and
// `{httpCode, httpMessage, moreInformation, tppMessages[{category, code, path?, text}]}` elsewhere.
import { Deviation } from './check.ts';
import { jsonBody, shown, summary } from './expect.ts';
import type { Answer } from './http.ts';

export interface ApiErrorWanted {
  /** The status, or the statuses the contract leaves open. */
  readonly status: number | readonly number[];
  /** The codes the contract allows here, one tppMessage must carry one of them; none named: any code. */
  readonly codes: readonly string[];
  /** The field or header the message must name, where the case is about one. */
  readonly path?: string;
}

export function expectApiError(answer: Answer, wanted: ApiErrorWanted): void {
  const statuses: readonly number[] = typeof wanted.status === 'number' ? [wanted.status] : wanted.status;
  const codes = wanted.codes.length === 0 ? 'API error' : wanted.codes.join('|');
  const expected = `${statuses.join('|')} ${codes}${wanted.path === undefined ? '' : ` at ${wanted.path}`}`;
  if (!statuses.includes(answer.status)) throw new Deviation(expected, summary(answer));
  const body = jsonBody(answer, answer.status);
  if (body.httpCode !== String(answer.status)) {
    throw new Deviation(`httpCode "${answer.status}"`, `httpCode ${shown(body.httpCode)}`);
  }
  for (const field of ['httpMessage', 'moreInformation'] as const) {
    if (typeof body[field] !== 'string')
      throw new Deviation(`${field}: a string`, `${field}: ${shown(body[field])}`);
  }
  const messages = body.tppMessages;
  if (!Array.isArray(messages) || messages.length === 0) {
    throw new Deviation('tppMessages: a non-empty array', `tppMessages: ${shown(messages)}`);
  }
  for (const message of messages as Record<string, unknown>[]) {
    const wellFormed =
      message !== null &&
      typeof message === 'object' &&
      message.category === 'ERROR' &&
      typeof message.code === 'string' &&
      typeof message.text === 'string' &&
      (message.path === undefined || typeof message.path === 'string');
    if (!wellFormed) {
      throw new Deviation(
        'tppMessages of {category: "ERROR", code, path?, text}',
        `tppMessage ${shown(message)}`,
      );
    }
  }
  const found = (messages as { code: string; path?: string }[]).some(
    (message) =>
      (wanted.codes.length === 0 || wanted.codes.includes(message.code)) &&
      (wanted.path === undefined || message.path === wanted.path),
  );
  if (!found) {
    const got = (messages as { code: string; path?: string }[])
      .map((message) => `${message.code}${message.path === undefined ? '' : ` at ${message.path}`}`)
      .join(', ');
    throw new Deviation(expected, `${answer.status} ${got}`);
  }
}

export interface OAuthErrorWanted {
  readonly status: number;
  readonly errors: readonly string[];
}

export function expectOAuthError(answer: Answer, wanted: OAuthErrorWanted): void {
  const expected = `${wanted.status} error ${wanted.errors.join('|')}`;
  const body = jsonBody(answer, wanted.status, `error ${wanted.errors.join('|')}`);
  if (typeof body.error !== 'string' || !wanted.errors.includes(body.error)) {
    throw new Deviation(expected, `${answer.status} error ${shown(body.error)}`);
  }
  if (typeof body.error_description !== 'string') {
    throw new Deviation('error_description: a string', `error_description: ${shown(body.error_description)}`);
  }
}
