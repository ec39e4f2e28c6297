// Text that a database cannot hold: U+0000 (PostgreSQL text refuses it) and unpaired surrogates
// (jsonb refuses both as escapes). A TPP has no reason to send either.

const UNPAIRED_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const UNPAIRED_SURROGATES = new RegExp(UNPAIRED_SURROGATE.source, 'g');

export const UNSTORABLE_TEXT = 'contains a character that is not accepted (U+0000 or an unpaired surrogate)';

export function isStorableText(text: string): boolean {
  return !text.includes('\u0000') && !UNPAIRED_SURROGATE.test(text);
}

/** The text with what cannot be stored shown as U+FFFD. */
export function showStorable(text: string): string {
  return text.replaceAll('\u0000', '\ufffd').replace(UNPAIRED_SURROGATES, '\ufffd');
}

/** Where (a dotted path, as tppMessages name fields) the first unstorable string or member name is. */
export function unstorableAt(value: unknown, path: string): string | undefined {
  if (typeof value === 'string') return isStorableText(value) ? undefined : path;
  if (value === null || typeof value !== 'object') return undefined;
  // Every request's input passes here: a member's path is built only for an object or array to go
  // into, or for the member refused (issue 18), not for every string.
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    if (!isStorableText(key)) return memberPath(path, key);
    const item = record[key];
    if (typeof item === 'string') {
      if (!isStorableText(item)) return memberPath(path, key);
    } else if (item !== null && typeof item === 'object') {
      const found = unstorableAt(item, memberPath(path, key));
      if (found !== undefined) return found;
    }
  }
  return undefined;
}

function memberPath(path: string, key: string): string {
  return path === '' ? key : `${path}.${key}`;
}
