// The part of Structured Field Values (RFC 8941) that HTTP Message Signatures (RFC 9421) and
// Content-Digest (RFC 9530) use: parsing a Dictionary (Signature-Input, Signature, Content-Digest) and
// serializing an Inner List (the signature base's @signature-params). Written here because the client
// imports nothing (it runs in browsers as published); the gateway signs with http-message-signatures,
// which serializes with structured-headers, and test/client holds the two to each other. Dates and
// display strings (RFC 9651) are refused: no signature field uses them.

export type BareItem =
  | { readonly type: 'integer' | 'decimal'; readonly value: number }
  | { readonly type: 'string' | 'token'; readonly value: string }
  | { readonly type: 'boolean'; readonly value: boolean }
  | { readonly type: 'bytes'; readonly value: Uint8Array };

export type Parameters = ReadonlyMap<string, BareItem>;
export interface Item {
  readonly item: BareItem;
  readonly params: Parameters;
}
export interface InnerList {
  readonly items: readonly Item[];
  readonly params: Parameters;
}
export type Member = Item | InnerList;

export class StructuredFieldError extends Error {
  override readonly name = 'StructuredFieldError';
}

const KEY_START = /[a-z*]/;
const KEY_CHAR = /[a-z0-9_\-.*]/;
const TOKEN_START = /[A-Za-z*]/;
const TOKEN_CHAR = /[!#$%&'*+\-.^_`|~0-9A-Za-z:/]/;
const BASE64_CHAR = /[A-Za-z0-9+/=]/;

/** Parses a Dictionary field value (RFC 8941 4.2.2); field lines given apart are joined with ", ". */
export function parseDictionary(value: string): Map<string, Member> {
  const parser = new Parser(value);
  parser.spaces();
  const dictionary = new Map<string, Member>();
  while (!parser.done()) {
    const key = parser.key();
    let member: Member;
    if (parser.peek() === '=') {
      parser.next();
      member = parser.peek() === '(' ? parser.innerList() : parser.item();
    } else {
      member = { item: { type: 'boolean', value: true }, params: parser.parameters() };
    }
    dictionary.set(key, member);
    parser.whitespace();
    if (parser.done()) break;
    if (parser.next() !== ',')
      throw new StructuredFieldError('a dictionary member is not followed by a comma');
    parser.whitespace();
    if (parser.done()) throw new StructuredFieldError('a dictionary ends with a comma');
  }
  return dictionary;
}

export function isInnerList(member: Member): member is InnerList {
  return 'items' in member;
}

/** Serializes an Inner List (RFC 8941 4.1.1.1), as RFC 9421 puts it in the signature base. */
export function serializeInnerList(list: InnerList): string {
  const items = list.items.map((item) => serializeBareItem(item.item) + serializeParameters(item.params));
  return `(${items.join(' ')})${serializeParameters(list.params)}`;
}

function serializeParameters(params: Parameters): string {
  let text = '';
  for (const [key, value] of params) {
    text += `;${key}`;
    if (!(value.type === 'boolean' && value.value)) text += `=${serializeBareItem(value)}`;
  }
  return text;
}

function serializeBareItem(item: BareItem): string {
  switch (item.type) {
    case 'integer':
      return String(item.value);
    case 'decimal': {
      const text = item.value.toFixed(3).replace(/0+$/, '');
      return text.endsWith('.') ? `${text}0` : text;
    }
    case 'string':
      return `"${item.value.replace(/[\\"]/g, (char) => `\\${char}`)}"`;
    case 'token':
      return item.value;
    case 'boolean':
      return item.value ? '?1' : '?0';
    case 'bytes':
      return `:${toBase64(item.value)}:`;
  }
}

class Parser {
  private at = 0;
  constructor(private readonly text: string) {}

  done(): boolean {
    return this.at >= this.text.length;
  }
  peek(): string {
    return this.text[this.at] ?? '';
  }
  next(): string {
    return this.text[this.at++] ?? '';
  }
  spaces(): void {
    while (this.peek() === ' ') this.at++;
  }
  whitespace(): void {
    while (this.peek() === ' ' || this.peek() === '\t') this.at++;
  }

  key(): string {
    if (!KEY_START.test(this.peek())) throw new StructuredFieldError('a key must start with a-z or *');
    let key = '';
    while (KEY_CHAR.test(this.peek())) key += this.next();
    return key;
  }

  parameters(): Map<string, BareItem> {
    const params = new Map<string, BareItem>();
    while (this.peek() === ';') {
      this.next();
      this.spaces();
      const key = this.key();
      let value: BareItem = { type: 'boolean', value: true };
      if (this.peek() === '=') {
        this.next();
        value = this.bareItem();
      }
      params.set(key, value);
    }
    return params;
  }

  item(): Item {
    const item = this.bareItem();
    return { item, params: this.parameters() };
  }

  innerList(): InnerList {
    this.next();
    const items: Item[] = [];
    while (!this.done()) {
      this.spaces();
      if (this.peek() === ')') {
        this.next();
        return { items, params: this.parameters() };
      }
      items.push(this.item());
      if (this.peek() !== ' ' && this.peek() !== ')')
        throw new StructuredFieldError('inner list items must be separated by a space');
    }
    throw new StructuredFieldError('an inner list is not closed');
  }

  bareItem(): BareItem {
    const char = this.peek();
    if (char === '-' || /[0-9]/.test(char)) return this.number();
    if (char === '"') return this.string();
    if (char === ':') return this.bytes();
    if (char === '?') return this.boolean();
    if (TOKEN_START.test(char)) return this.token();
    throw new StructuredFieldError('unknown item type');
  }

  private number(): BareItem {
    const match = /^-?(\d{1,15})(\.\d{1,3})?/.exec(this.text.slice(this.at));
    if (match === null || (match[2] !== undefined && match[1]!.length > 12))
      throw new StructuredFieldError('a number is malformed');
    this.at += match[0].length;
    if (/^[0-9.]/.test(this.peek())) throw new StructuredFieldError('a number is too long');
    return { type: match[2] === undefined ? 'integer' : 'decimal', value: Number(match[0]) };
  }

  private string(): BareItem {
    this.next();
    let value = '';
    while (!this.done()) {
      const char = this.next();
      if (char === '\\') {
        const escaped = this.next();
        if (escaped !== '"' && escaped !== '\\') throw new StructuredFieldError('a string has a bad escape');
        value += escaped;
      } else if (char === '"') {
        return { type: 'string', value };
      } else {
        const code = char.charCodeAt(0);
        if (code < 0x20 || code > 0x7e)
          throw new StructuredFieldError('a string holds a character out of range');
        value += char;
      }
    }
    throw new StructuredFieldError('a string is not closed');
  }

  private token(): BareItem {
    let value = '';
    while (TOKEN_CHAR.test(this.peek())) value += this.next();
    return { type: 'token', value };
  }

  private bytes(): BareItem {
    this.next();
    let value = '';
    while (BASE64_CHAR.test(this.peek())) value += this.next();
    if (this.next() !== ':') throw new StructuredFieldError('a byte sequence is not closed');
    return { type: 'bytes', value: fromBase64(value) };
  }

  private boolean(): BareItem {
    this.next();
    const char = this.next();
    if (char !== '0' && char !== '1') throw new StructuredFieldError('a boolean is ?0 or ?1');
    return { type: 'boolean', value: char === '1' };
  }
}

function fromBase64(text: string): Uint8Array {
  let binary: string;
  try {
    binary = atob(text);
  } catch {
    throw new StructuredFieldError('a byte sequence is not base64');
  }
  return Uint8Array.from(binary, (char) => char.charCodeAt(0));
}

function toBase64(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}
