// One delivery attempt: a JSON POST to the TPP's URI, to an address checked at this attempt. The host is
// resolved here and the connection made to the very address checked (the request's `lookup` answers it),
// so that DNS cannot point the name elsewhere between the check and the connection.
import { lookup as dnsLookup } from 'node:dns/promises';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { LookupFunction } from 'node:net';
import { isLoopback, isRefusedAddress } from './addresses.ts';

/**
 * The delivery's signature (issue 41 point 3; app.ts gives signing.ts's signer): given the request, the
 * headers to send with it (content-type, and the RFC 9421 Signature-Input, Signature and Content-Digest).
 */
export type SignDelivery = (request: {
  readonly method: 'POST';
  readonly url: string;
  readonly body: Buffer;
}) => Promise<Record<string, string>>;

export interface SendOptions {
  readonly timeoutMs: number;
  /** Loopback addresses may be reached (the sandbox); other private ranges never. */
  readonly loopback: boolean;
  readonly sign: SignDelivery;
}

/** An attempt's result: the receiver's status code, or why there was none (a short, stable text). */
export type SendResult =
  | { readonly statusCode: number }
  | { readonly error: string; readonly retry: boolean };

/** The longest answer read from a receiver (its body is not kept). */
const MAX_ANSWER_BYTES = 64 * 1024;

export async function send(uri: string, body: unknown, options: SendOptions): Promise<SendResult> {
  const url = new URL(uri);
  const hostname = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  let addresses: readonly { address: string; family: number }[];
  try {
    // Every address the name has: one refused address refuses the delivery, whichever would be used.
    addresses = await dnsLookup(hostname, { all: true, verbatim: true });
  } catch {
    return { error: 'name not resolved', retry: true };
  }
  const allowed = (address: string) =>
    !isRefusedAddress(address) || (options.loopback && isLoopback(address));
  if (addresses.length === 0) return { error: 'name not resolved', retry: true };
  if (!addresses.every((entry) => allowed(entry.address))) return { error: 'refused address', retry: false };
  const target = addresses[0]!;
  const payload = Buffer.from(JSON.stringify(body));
  const headers = await options.sign({ method: 'POST', url: url.href, body: payload });
  const pinned: LookupFunction = (_host, lookupOptions, callback) => {
    if ((lookupOptions as { all?: boolean }).all === true)
      (callback as (error: null, addresses: { address: string; family: number }[]) => void)(null, [target]);
    else callback(null, target.address, target.family);
  };
  return new Promise<SendResult>((resolve) => {
    const requestOf = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const outgoing = requestOf(url, {
      method: 'POST',
      headers: { ...headers, 'content-length': String(payload.length) },
      lookup: pinned,
      agent: false,
    });
    const timer = setTimeout(() => {
      outgoing.destroy();
      resolve({ error: 'timeout', retry: true });
    }, options.timeoutMs);
    outgoing.on('response', (answer) => {
      let read = 0;
      answer.on('data', (chunk: Buffer) => {
        read += chunk.length;
        if (read > MAX_ANSWER_BYTES) answer.destroy();
      });
      const done = () => {
        clearTimeout(timer);
        resolve({ statusCode: answer.statusCode ?? 0 });
      };
      answer.on('end', done);
      answer.on('close', done);
      answer.on('error', done);
    });
    outgoing.on('error', (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      resolve({ error: connectionError(error.code), retry: true });
    });
    outgoing.end(payload);
  });
}

function connectionError(code: string | undefined): string {
  switch (code) {
    case 'ECONNREFUSED':
      return 'connection refused';
    case 'ECONNRESET':
    case 'EPIPE':
      return 'connection reset';
    case 'ETIMEDOUT':
      return 'timeout';
    default:
      return code?.startsWith('ERR_TLS') || code?.includes('CERT') ? 'tls failed' : 'connection failed';
  }
}
