// The plain node:http answers every baseline shares: JSON with its length (a server built for throughput
// does not chunk), the TPP's ids echoed, errors in the gateway's shape, the body read whole.
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { forEachEchoedId } from '../../src/http/tpp-headers.ts';

export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const JSON_TYPE = { 'content-type': 'application/json; charset=utf-8' };

export function send(response: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  response.writeHead(status, { ...JSON_TYPE, 'content-length': Buffer.byteLength(text) }).end(text);
}

/** The TPP's ids every answer echoes (API-NOTES), by the gateway's own rule (well-formed ones only). */
export function echo(request: IncomingMessage, response: ServerResponse): void {
  forEachEchoedId(request.headers, (name, value) => response.setHeader(name, value));
}

export function fail(response: ServerResponse, status: number, code: string, text: string): void {
  send(response, status, {
    httpCode: String(status),
    httpMessage: code,
    moreInformation: text,
    tppMessages: [{ category: 'ERROR', code, text }],
  });
}

export const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

export function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks).toString()));
    request.on('error', reject);
  });
}

export function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

export const token = () => randomBytes(32).toString('base64url');
