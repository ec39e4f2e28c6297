// Where a rate file is read from: a file on disk, or an address fetched over HTTPS (plain HTTP only from
// this machine, for tests and a local mirror). A fetch is bounded in time and size.
import { readFile } from 'node:fs/promises';
import { get as httpGet, type IncomingMessage } from 'node:http';
import { get as httpsGet } from 'node:https';

export type RateSource =
  | { readonly kind: 'file'; readonly path: string }
  | {
      readonly kind: 'url';
      readonly url: string;
      /** Trusted issuers of the server's certificate (PEM contents); unset: the system's. */
      readonly ca?: string | undefined;
      /** How long one fetch may take, connection to last byte; default 10 s. */
      readonly timeoutMs?: number | undefined;
    };

const DEFAULT_TIMEOUT_MS = 10_000;
/** Well above the ECB's whole history since 1999 (about 7 MB). */
const MAX_BYTES = 64 * 1024 * 1024;
const LOOPBACK = new Set(['127.0.0.1', '[::1]', 'localhost']);

/** The source as an operator knows it, for messages: the path, or the address without its query. */
export function sourceName(source: RateSource): string {
  if (source.kind === 'file') return source.path;
  const url = new URL(source.url);
  return url.origin + url.pathname;
}

/** Refuses an address that cannot be a source: not a URL, not HTTPS, or HTTP to another machine. */
export function checkSource(source: RateSource): void {
  if (source.kind === 'file') return;
  let url: URL;
  try {
    url = new URL(source.url);
  } catch {
    throw new Error(`FX_RATES "${source.url}" is not a URL`);
  }
  if (url.protocol === 'https:') return;
  if (url.protocol === 'http:' && LOOPBACK.has(url.hostname)) return;
  throw new Error(`FX_RATES ${sourceName(source)} must be https (plain http only to this machine)`);
}

/** The text of the source now. Throws an Error saying why it could not be read. */
export function readSource(source: RateSource, signal: AbortSignal): Promise<string> {
  if (source.kind === 'file') return readFile(source.path, { encoding: 'utf8', signal });
  return fetchText(source, signal);
}

function fetchText(source: Extract<RateSource, { kind: 'url' }>, signal: AbortSignal): Promise<string> {
  const url = new URL(source.url);
  const timeoutMs = source.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  return new Promise<string>((resolve, reject) => {
    const options = { signal, headers: { accept: 'application/xml, text/xml' } };
    const request =
      url.protocol === 'https:'
        ? httpsGet(url, source.ca === undefined ? options : { ...options, ca: source.ca }, answer)
        : httpGet(url, options, answer);
    const timer = setTimeout(() => request.destroy(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
    request.on('error', reject);
    request.on('close', () => clearTimeout(timer));

    function answer(response: IncomingMessage): void {
      if (response.statusCode !== 200) {
        response.resume();
        request.destroy(new Error(`answered HTTP ${response.statusCode}`));
        return;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      response.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > MAX_BYTES) request.destroy(new Error(`answered more than ${MAX_BYTES} bytes`));
        else chunks.push(chunk);
      });
      response.on('error', reject);
      response.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    }
  });
}
