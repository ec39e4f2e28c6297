// The checker's HTTP: global fetch, never following redirects (a 302 is an answer to check), every
// request bounded in time by --timeout and by what is left of --total-timeout, bodies read up to a cap.
import { type CheckContext, Deviation, Skip } from './check.ts';

export interface Answer {
  readonly status: number;
  readonly headers: Headers;
  readonly contentType: string;
  readonly text: string;
  /** The body parsed, when it is JSON; undefined otherwise. */
  readonly json: unknown;
  /**
   * What was asked: the method, the URL's path (no query), and the media type of a body built from
   * `json` or `form`, which is the one the contract names for the path (a check that sends another
   * sends a raw `body`).
   */
  readonly asked: { readonly method: string; readonly path: string; readonly mediaType?: string };
}

export interface HttpRequest {
  readonly method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** A path under the base URL, or an absolute URL the endpoint handed out (a link). */
  readonly path: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly json?: unknown;
  readonly form?: Readonly<Record<string, string>>;
  /** A raw body, sent with the Content-Type the headers give. */
  readonly body?: string;
}

/** A peer could answer without end: what is read of a body. */
const MAX_BODY_BYTES = 1 << 20;

export async function send(context: CheckContext, request: HttpRequest): Promise<Answer> {
  const ms = Math.min(context.options.timeoutMs, context.remainingMs());
  if (ms <= 0) throw new Skip('the total time limit was reached');
  const headers: Record<string, string> = { Accept: 'application/json', ...request.headers };
  let body = request.body;
  let mediaType: string | undefined;
  if (request.json !== undefined) {
    mediaType = headers['Content-Type'] ??= 'application/json';
    body = JSON.stringify(request.json);
  } else if (request.form !== undefined) {
    mediaType = headers['Content-Type'] ??= 'application/x-www-form-urlencoded';
    body = new URLSearchParams(request.form).toString();
  }
  const url = /^https?:\/\//.test(request.path) ? request.path : context.options.baseUrl + request.path;
  const asked = {
    method: request.method,
    path: pathOf(url),
    ...(mediaType === undefined ? {} : { mediaType }),
  };
  const signal = AbortSignal.timeout(ms);
  try {
    const response = await fetch(url, { method: request.method, headers, body, redirect: 'manual', signal });
    const text = await readCapped(response);
    const contentType = response.headers.get('content-type') ?? '';
    return {
      status: response.status,
      headers: response.headers,
      contentType,
      text,
      json: parsed(text),
      asked,
    };
  } catch (error) {
    if (error instanceof Deviation) throw error;
    // Cut short by the run's time, not by the endpoint's slowness: not the endpoint's failure.
    if (signal.aborted && ms < context.options.timeoutMs) throw new Skip('the total time limit was reached');
    const reason = signal.aborted ? `no answer within ${ms} ms` : `no answer: ${causeOf(error)}`;
    throw new Deviation(`an answer to ${request.method} ${pathOf(url)}`, reason);
  }
}

async function readCapped(response: Response): Promise<string> {
  if (response.body === null) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_BODY_BYTES) {
      await reader.cancel();
      throw new Deviation(`a body of at most ${MAX_BODY_BYTES} bytes`, 'a larger body');
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function parsed(text: string): unknown {
  if (text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function causeOf(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (error as Error).message ?? String(error);
}

/** The path and query of a URL, for messages. */
function pathOf(url: string): string {
  try {
    const parsedUrl = new URL(url);
    return parsedUrl.pathname;
  } catch {
    return url;
  }
}
