// inject() helpers: whole answers as { status, body }, and the documented error body shapes.
import type { FastifyInstance } from 'fastify';

export interface Answer {
  readonly status: number;
  readonly headers: Record<string, unknown>;
  readonly body: unknown;
}

export async function call(
  app: FastifyInstance,
  method: 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH',
  url: string,
  options: {
    headers?: Record<string, string>;
    json?: unknown;
    payload?: string | Buffer;
    remoteAddress?: string;
  } = {},
): Promise<Answer> {
  const response = await app.inject({
    method,
    url,
    ...(options.remoteAddress === undefined ? {} : { remoteAddress: options.remoteAddress }),
    headers: {
      ...(options.json === undefined ? {} : { 'content-type': 'application/json' }),
      ...options.headers,
    },
    ...(options.json === undefined ? {} : { payload: JSON.stringify(options.json) }),
    ...(options.payload === undefined ? {} : { payload: options.payload }),
  });
  const text = response.body;
  let body: unknown = text;
  if (String(response.headers['content-type'] ?? '').includes('json') && text !== '') body = JSON.parse(text);
  return { status: response.statusCode, headers: response.headers, body };
}

export interface Message {
  code: string;
  path?: string;
  text: string;
}

/** The API error body (API-NOTES "Error bodies"). */
export function errorBody(status: number, httpMessage: string, ...messages: Message[]) {
  return {
    httpCode: String(status),
    httpMessage,
    moreInformation: messages[0]!.text,
    tppMessages: messages.map((message) => ({ category: 'ERROR', ...message })),
  };
}

export const BAD_REQUEST = (...messages: Message[]) => ({
  status: 400,
  body: errorBody(400, 'Bad Request', ...messages),
});
export const UNAUTHORIZED = (...messages: Message[]) => ({
  status: 401,
  body: errorBody(401, 'Unauthorized', ...messages),
});
export const FORBIDDEN = (...messages: Message[]) => ({
  status: 403,
  body: errorBody(403, 'Forbidden', ...messages),
});
export const NOT_FOUND = (...messages: Message[]) => ({
  status: 404,
  body: errorBody(404, 'Not Found', ...messages),
});

export function statusAndBody(answer: Answer) {
  return { status: answer.status, body: answer.body };
}

/** The SCA methods an initiation or consent answers: redirect, and in Sweden decoupled too. */
export function expectedScaMethods(url: string, decoupled: boolean) {
  return [
    {
      scaMethodType: 'REDIRECT',
      _links: {
        authorization: [
          { href: `${url}/oauth2/authorize/1.0`, name: 'authorize', type: 'application/json' },
          { href: `${url}/oauth2/token/1.0`, name: 'token', type: 'application/x-www-form-urlencoded' },
        ],
      },
    },
    ...(decoupled
      ? [
          {
            scaMethodType: 'DECOUPLED',
            _links: {
              authorization: [
                {
                  href: `${url}/decoupled/eid/initAuthorization/2.0`,
                  name: 'initAuthorization',
                  type: 'application/json',
                },
              ],
            },
          },
        ]
      : []),
  ];
}

/** 422: the Idempotency-Key was used before for another request (services/shared/idempotency.ts). */
export const KEY_REUSED = errorBody(422, 'Unprocessable Entity', {
  code: 'IDEMPOTENCY_KEY_REUSED',
  path: 'Idempotency-Key',
  text: 'Idempotency-Key was already used for another request to this operation: send a new key for a new request',
});

/** 409: a request with the Idempotency-Key is still in flight. */
export const KEY_IN_FLIGHT = errorBody(409, 'Conflict', {
  code: 'IDEMPOTENCY_KEY_IN_FLIGHT',
  path: 'Idempotency-Key',
  text: 'A request with this Idempotency-Key is still being processed: retry after it has been answered',
});
