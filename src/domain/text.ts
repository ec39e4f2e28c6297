// Text that a database cannot hold: U+0000 (PostgreSQL text refuses it) and unpaired surrogates
// (jsonb refuses both as escapes). A TPP has no reason to send either.

const UNPAIRED_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

export const UNSTORABLE_TEXT = 'contains a character that is not accepted (U+0000 or an unpaired surrogate)';

export function isStorableText(text: string): boolean {
  return !text.includes('\u0000') && !UNPAIRED_SURROGATE.test(text);
}

/** Where the first unstorable text is: a string at `path`, or the name of a member of `path`. */
export interface Unstorable {
  /** A dotted path, as tppMessages name fields ('' for the value itself). */
  readonly path: string;
  /** The text is the name of a member of the object at `path`, not a value. */
  readonly inName: boolean;
}

interface Frame {
  readonly record: Record<string, unknown>;
  readonly keys: readonly string[];
  readonly path: string;
  index: number;
}

/**
 * Where the first unstorable string or member name is, in document order. Every request's input
 * passes here: a member's path is built only for an object or array to go into, not for every string
 * (issue 18). No recursion: the objects gone into are a stack of their own, so no depth of input can
 * overflow the call stack (issue 37).
 */
export function unstorableAt(value: unknown, path: string): Unstorable | undefined {
  if (typeof value === 'string') return isStorableText(value) ? undefined : { path, inName: false };
  if (value === null || typeof value !== 'object') return undefined;
  const stack: Frame[] = [frameOf(value, path)];
  while (stack.length > 0) {
    const frame = stack[stack.length - 1]!;
    if (frame.index === frame.keys.length) {
      stack.pop();
      continue;
    }
    const key = frame.keys[frame.index++]!;
    if (!isStorableText(key)) return { path: frame.path, inName: true };
    const item = frame.record[key];
    if (typeof item === 'string') {
      if (!isStorableText(item)) return { path: memberPath(frame.path, key), inName: false };
    } else if (item !== null && typeof item === 'object') {
      stack.push(frameOf(item, memberPath(frame.path, key)));
    }
  }
  return undefined;
}

function frameOf(value: object, path: string): Frame {
  const record = value as Record<string, unknown>;
  return { record, keys: Object.keys(record), path, index: 0 };
}

function memberPath(path: string, key: string): string {
  return path === '' ? key : `${path}.${key}`;
}

const HTML_ESCAPES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** Text put into an HTML page, escaped (a page of ours or the published availability report). */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (character) => HTML_ESCAPES[character]!);
}
