// Requests over real TLS with a client certificate (or none), on loopback.
import { request } from 'node:https';

export interface TlsAnswer {
  readonly status: number;
  readonly body: unknown;
}

export interface ClientCertificate {
  readonly certificatePem: string;
  readonly keyPem: string;
}

/** A request over TLS, its body parsed when the answer is JSON (built on tlsFetch below). */
export async function tlsRequest(
  url: string,
  options: {
    method: string;
    ca: string;
    client?: ClientCertificate;
    headers?: Record<string, string>;
    body?: string;
  },
): Promise<TlsAnswer> {
  const answer = await tlsFetch(url, options);
  const json = (answer.headers.get('content-type') ?? '').includes('json') && answer.text !== '';
  return { status: answer.status, body: json ? JSON.parse(answer.text) : answer.text };
}

/** An answer as fetch gives it (status, Headers, text), of a request over TLS with the test CA trusted. */
export interface FetchedOverTls {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
}

/** fetch over node:https: a CA of the test's own, and a client certificate when given (fetch takes neither). */
export function tlsFetch(
  url: string | URL,
  options: {
    method: string;
    ca: string;
    client?: ClientCertificate;
    headers?: Record<string, string>;
    body?: string;
  },
): Promise<FetchedOverTls> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: options.method,
        ca: options.ca,
        ...(options.client === undefined
          ? {}
          : { cert: options.client.certificatePem, key: options.client.keyPem }),
        headers: options.headers,
        agent: false,
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          const headers = new Headers();
          for (const [name, value] of Object.entries(response.headers))
            for (const one of [value ?? []].flat()) headers.append(name, one);
          resolve({ status: response.statusCode ?? 0, headers, text: Buffer.concat(chunks).toString() });
        });
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}
