// The gateway's log: pino, with each request's method, path, correlation id and, as API-NOTES asks,
// the PSU-IP-Address the TPP sent. Tokens and query strings (which carry one-time codes) are left out.
import { type FastifyReply, type FastifyRequest, LogController } from 'fastify';
import pino, { type Logger, type LoggerOptions } from 'pino';
import type { Config } from '../config.ts';

export function loggerOptions(config: Config): LoggerOptions {
  return {
    level: config.logLevel,
    serializers: {
      req: (request: FastifyRequest) => ({
        method: request.method,
        path: request.url.split('?')[0],
        psuIpAddress: request.headers['psu-ip-address'],
        tppRequestId: request.headers['tpp-request-id'],
      }),
    },
  };
}

/**
 * One line per request, once its answer has gone: the request (method, path, PSU-IP-Address,
 * TPP-Request-ID), the status and the time in ms, under the request's correlation id (reqId, which a
 * 5xx answer names). Fastify's own pair (one line as a request comes, without the status; one as it is
 * answered, without the request) becomes this one, in half the log (docs/decisions.md, "The bench logs
 * as a bank's gateway does"). Fastify's other lines (a route not found, a stream closed early) stay its.
 */
export class RequestLog extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(
    error: Error | null | undefined,
    request: FastifyRequest,
    reply: FastifyReply,
  ): void {
    const line = { req: request, res: { statusCode: reply.statusCode }, responseTime: reply.elapsedTime };
    if (error) request.log.error(Object.assign(line, { err: error }), 'request errored');
    else request.log.info(line, 'request completed');
  }
}

export function createLogger(config: Config): Logger {
  return pino(loggerOptions(config));
}
