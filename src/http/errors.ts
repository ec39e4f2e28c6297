// Serialises every error in one place, in one of two shapes: RFC 6749 on the OAuth endpoints, the
// API shape (httpCode, httpMessage, moreInformation, tppMessages) elsewhere. A 5xx carries nothing
// internal, only a correlation id that the log has too.
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { ConnectionError, FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { SYSTEM_TITLES, SystemUnavailable } from '../domain/bank-systems.ts';
import { ApiError, type ApiErrorCode, OAuthError, type TppMessage } from '../domain/errors.ts';
import { FORM_MEDIA_TYPE, takesForms } from './form-body.ts';
import { isShowableName } from './tolerant-body.ts';
import { setAnswerHeaders } from './tpp-headers.ts';

export interface ApiErrorBody {
  readonly httpCode: string;
  readonly httpMessage: string;
  readonly moreInformation: string;
  readonly tppMessages: readonly { category: 'ERROR'; code: string; path?: string; text: string }[];
}

export function apiErrorBody(status: number, messages: readonly TppMessage[]): ApiErrorBody {
  return {
    httpCode: String(status),
    httpMessage: STATUS_CODES[status] ?? 'Error',
    moreInformation: messages[0]?.text ?? '',
    tppMessages: messages.map(({ code, path, text }) => ({
      category: 'ERROR',
      code,
      ...(path === undefined ? {} : { path }),
      text,
    })),
  };
}

interface AjvError {
  readonly instancePath: string;
  readonly keyword: string;
  readonly params: Record<string, unknown>;
  readonly message?: string;
}

/** At most this many schema failures are named in an answer; the others are counted. */
export const MAX_MESSAGES = 20;

/**
 * Turns schema validation errors into tppMessages naming the field (body) or header. 120,000 wrong
 * items of a 256 kB body made a 12 MB answer and half a second of work (issue 37): the first
 * MAX_MESSAGES fields are named, the others only counted.
 */
function validationMessages(error: FastifyError): TppMessage[] {
  const errors = (error.validation ?? []) as AjvError[];
  const byPath = new Map<string, TppMessage>();
  const others = new Set<string>();
  for (const item of errors) {
    const at = item.instancePath === '' ? '' : item.instancePath.slice(1).replaceAll('/', '.');
    if (byPath.size >= MAX_MESSAGES && !byPath.has(at) && item.keyword !== 'required') {
      others.add(at);
      continue;
    }
    let path = at;
    let text: string;
    if (item.keyword === 'required') {
      path = [path, String(item.params.missingProperty)].filter(Boolean).join('.');
      text = `${path} is required`;
    } else if (item.keyword === 'additionalProperties') {
      // The member's name is the caller's: named only when it reads as a field name.
      const name = String(item.params.additionalProperty);
      if (isShowableName(name)) {
        path = [path, name].filter(Boolean).join('.');
        text = `${path} is not a field of this request`;
      } else {
        text = `${path || 'the request'} has a field whose name is not accepted`;
      }
    } else if (item.keyword === 'anyOf' || item.keyword === 'oneOf') {
      text = `${path} must be a decimal string or a number`;
    } else {
      text = `${path || 'the body'} ${item.message ?? 'is invalid'}`;
    }
    // anyOf reports after its branches: its single message replaces theirs.
    if (byPath.has(path) && item.keyword !== 'anyOf' && item.keyword !== 'oneOf') continue;
    if (byPath.size >= MAX_MESSAGES && !byPath.has(path)) {
      others.add(path);
      continue;
    }
    byPath.set(path, { code: 'FORMAT_ERROR', text, ...(path === '' ? {} : { path }) });
  }
  if (byPath.size === 0) return [{ code: 'FORMAT_ERROR', text: 'the request is malformed' }];
  const messages = [...byPath.values()];
  if (others.size === 0) return messages;
  const more = `and ${others.size} more ${others.size === 1 ? 'field' : 'fields'} with a problem`;
  return [...messages, { code: 'FORMAT_ERROR', text: more }];
}

/** The API code of a framework error that carries a 4xx status. */
function codeOfStatus(status: number): ApiErrorCode {
  if (status === 413) return 'REQUEST_TOO_LARGE';
  if (status === 415) return 'UNSUPPORTED_MEDIA_TYPE';
  if (status === 404) return 'RESOURCE_UNKNOWN';
  if (status === 405) return 'SERVICE_INVALID';
  return 'FORMAT_ERROR';
}

function clientErrorText(error: FastifyError, status: number, request: FastifyRequest): string {
  // The PSU pages take forms; every other endpoint with a body JSON.
  if (status === 415)
    return `Content-Type must be ${takesForms(request) ? FORM_MEDIA_TYPE : 'application/json'}`;
  if (status === 413) return 'the request body is too large';
  if (error.code === 'FST_ERR_CTP_EMPTY_JSON_BODY') return 'the body must be a JSON object';
  if (error.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || error instanceof SyntaxError)
    return 'the body is not valid JSON';
  if (error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') return 'the Content-Type is not accepted here';
  return 'the request is malformed';
}

export function isOAuthRoute(request: FastifyRequest): boolean {
  return request.routeOptions.config?.errorShape === 'oauth';
}

export function sendApiError(
  reply: FastifyReply,
  status: number,
  messages: readonly TppMessage[],
): FastifyReply {
  if (messages.some((message) => message.code.startsWith('TOKEN_'))) {
    reply.header('WWW-Authenticate', 'Bearer realm="psd2-gateway"');
  }
  return reply.code(status).type('application/json; charset=utf-8').send(apiErrorBody(status, messages));
}

function sendOAuthError(
  reply: FastifyReply,
  status: number,
  error: string,
  description: string,
): FastifyReply {
  reply.header('Cache-Control', 'no-store').header('Pragma', 'no-cache');
  return reply
    .code(status)
    .type('application/json; charset=utf-8')
    .send({ error, error_description: description });
}

/**
 * Fastify's `frameworkErrors`: what fails before routing (a malformed percent-encoding, a path
 * segment beyond the router's maxParamLength). No route, so no onSend hook: the headers every answer
 * carries are set here.
 */
export function answerFrameworkError(maxParamLength: number) {
  return (error: FastifyError, request: FastifyRequest, reply: FastifyReply): FastifyReply => {
    setAnswerHeaders(request, reply);
    const text =
      error.code === 'FST_ERR_BAD_URL'
        ? 'the path is not a valid URL: it has a malformed percent-encoding'
        : error.code === 'FST_ERR_MAX_PARAM_LENGTH'
          ? `a segment of the path is longer than ${maxParamLength} characters`
          : 'the path is malformed';
    return sendApiError(reply, 400, [{ code: 'FORMAT_ERROR', text }]);
  };
}

/**
 * What Node's HTTP parser refuses (a control character in a header, headers too large, a request
 * that never finished) reaches no route: it is answered here, in the API shape, and the connection
 * closed. Fastify's `clientErrorHandler`.
 */
export function answerClientError(error: ConnectionError, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, code, text]: [number, ApiErrorCode, string] =
    error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? [408, 'FORMAT_ERROR', 'the request did not arrive in time']
      : error.code === 'HPE_HEADER_OVERFLOW'
        ? [431, 'REQUEST_TOO_LARGE', 'the request headers are too large']
        : [400, 'FORMAT_ERROR', 'the request is not valid HTTP'];
  const body = JSON.stringify(apiErrorBody(status, [{ code, text }]));
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy();
}

/** A request that arrived while the gateway closes: answered 503, to be sent to another instance. */
export class ServiceClosing extends Error {
  constructor() {
    super('the gateway is closing');
    this.name = 'ServiceClosing';
  }
}

/** How long a client should wait before trying again while a system the gateway needs is away, s. */
export const RETRY_AFTER_SECONDS = 5;

/**
 * A system the gateway needs cannot answer now: a bank system (the domain's SystemUnavailable, which the
 * adapters throw) or the database (`unavailable` tells its errors). Such an error is a 503 with
 * Retry-After (SERVICE_UNAVAILABLE; temporarily_unavailable on OAuth routes), not a 500.
 */
export function registerErrorHandling(
  app: FastifyInstance,
  unavailable: (error: unknown) => boolean = () => false,
): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (error instanceof OAuthError) {
      if (error.status >= 500) request.log.error({ err: error }, 'oauth server error');
      // A service's own temporarily_unavailable (the e-ID service away): when to try again, as any 503.
      if (error.status === 503) reply.header('Retry-After', String(RETRY_AFTER_SECONDS));
      return sendOAuthError(reply, error.status, error.error, error.description);
    }
    if (error instanceof ApiError) return sendApiError(reply, error.status, error.messages);
    const status = typeof error.statusCode === 'number' ? error.statusCode : 500;
    if (status >= 400 && status < 500) {
      const messages =
        error.validation !== undefined
          ? validationMessages(error)
          : [
              {
                code: codeOfStatus(status),
                text: clientErrorText(error, status, request),
              } satisfies TppMessage,
            ];
      if (isOAuthRoute(request)) {
        if (status === 415) {
          // The token endpoint takes forms; the decoupled endpoints JSON.
          const mediaType = takesForms(request) ? FORM_MEDIA_TYPE : 'application/json';
          return sendOAuthError(reply, 415, 'invalid_request', `the body must be ${mediaType}`);
        }
        return sendOAuthError(reply, status === 413 ? 413 : 400, 'invalid_request', messages[0]!.text);
      }
      return sendApiError(
        reply,
        status === 404 || status === 405 || status === 413 || status === 415 ? status : 400,
        messages,
      );
    }
    // The gateway closing, a bank system or the database away: 503 with Retry-After, in the route's shape.
    const away =
      error instanceof ServiceClosing
        ? { seconds: 1, text: 'The service is restarting; try again' }
        : error instanceof SystemUnavailable
          ? {
              seconds: RETRY_AFTER_SECONDS,
              text: `${SYSTEM_TITLES[error.system]} cannot answer now; try again in ${RETRY_AFTER_SECONDS} seconds (correlation id ${request.id})`,
            }
          : unavailable(error)
            ? {
                seconds: RETRY_AFTER_SECONDS,
                text: `The service cannot answer now; try again in ${RETRY_AFTER_SECONDS} seconds (correlation id ${request.id})`,
              }
            : undefined;
    if (away !== undefined) {
      if (error instanceof SystemUnavailable)
        request.log.error({ err: error, system: error.system }, `${error.system} cannot answer`);
      else if (!(error instanceof ServiceClosing))
        request.log.error({ err: error }, 'the database cannot answer');
      reply.header('Retry-After', String(away.seconds));
      if (isOAuthRoute(request)) return sendOAuthError(reply, 503, 'temporarily_unavailable', away.text);
      return sendApiError(reply, 503, [{ code: 'SERVICE_UNAVAILABLE', text: away.text }]);
    }
    request.log.error({ err: error }, 'request failed');
    const text = `An internal error occurred; correlation id ${request.id}`;
    if (isOAuthRoute(request)) return sendOAuthError(reply, 500, 'server_error', text);
    return sendApiError(reply, 500, [{ code: 'INTERNAL_ERROR', text }]);
  });
}
