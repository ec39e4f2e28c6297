// PostgreSQL text holds neither U+0000 nor unpaired surrogates (jsonb refuses both as escapes), and a
// TPP has no reason to send them: a request that carries one in its path, query or body is refused
// before any handler sees it, in the error shape of its endpoint.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { apiError, OAuthError } from '../domain/errors.ts';
import { isOAuthRoute } from './errors.ts';

const UNPAIRED_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const UNPAIRED_SURROGATES = new RegExp(UNPAIRED_SURROGATE.source, 'g');

function unstorable(text: string): boolean {
  return text.includes('\u0000') || UNPAIRED_SURROGATE.test(text);
}

/** The text with what cannot be stored shown as U+FFFD. */
function shown(text: string): string {
  return text.replaceAll('\u0000', '\ufffd').replace(UNPAIRED_SURROGATES, '\ufffd');
}

/** Where (a dotted path, as tppMessages name fields) the first unstorable string or key is, if any. */
function unstorableAt(value: unknown, path: string): string | undefined {
  if (typeof value === 'string') return unstorable(value) ? path : undefined;
  if (value === null || typeof value !== 'object') return undefined;
  for (const [key, item] of Object.entries(value)) {
    const at = path === '' ? key : `${path}.${key}`;
    if (unstorable(key)) return at;
    const found = unstorableAt(item, at);
    if (found !== undefined) return found;
  }
  return undefined;
}

function unstorableIn(request: FastifyRequest): string | undefined {
  return (
    unstorableAt(request.params, '') ?? unstorableAt(request.query, '') ?? unstorableAt(request.body, '')
  );
}

export function registerTextGuard(app: FastifyInstance): void {
  app.addHook('preValidation', async (request) => {
    const at = unstorableIn(request);
    if (at === undefined) return;
    // A member's name may itself hold the character: it is shown as U+FFFD.
    const name = shown(at);
    const where = name === '' ? 'the body' : name;
    const text = `${where} contains a character that is not accepted (U+0000 or an unpaired surrogate)`;
    if (isOAuthRoute(request)) throw new OAuthError('invalid_request', text);
    throw apiError('FORMAT_ERROR', text, name === '' ? undefined : name);
  });
}
