// The gateway's log: pino, with each request's method, path, correlation id and, as API-NOTES asks,
// the PSU-IP-Address the TPP sent. Tokens and query strings (which carry one-time codes) are left out,
// and personal identity numbers masked (personal-numbers.ts).
// LOG_FORMAT: one JSON object a line for machines, or pino-pretty's lines for a person at a terminal.
import { createRequire } from 'node:module';
import { type FastifyReply, type FastifyRequest, LogController } from 'fastify';
import pino, { type DestinationStream, type Logger, type LoggerOptions } from 'pino';
import type { PrettyOptions } from 'pino-pretty';
import type { Config } from '../config.ts';
import { maskPersonalNumbers } from './personal-numbers.ts';

export function loggerOptions(config: Config): LoggerOptions {
  return {
    level: config.logLevel,
    // Personal numbers stay out of the log: in a message, an error's message and stack, a path.
    hooks: {
      logMethod(args, method) {
        method.apply(
          this,
          args.map((arg) => (typeof arg === 'string' ? maskPersonalNumbers(arg) : arg)) as typeof args,
        );
      },
    },
    serializers: {
      err: (error: Error) => {
        const serialized = pino.stdSerializers.err(error);
        return {
          ...serialized,
          message: maskPersonalNumbers(serialized.message),
          stack: maskPersonalNumbers(serialized.stack),
        };
      },
      req: (request: FastifyRequest) => ({
        method: request.method,
        path: maskPersonalNumbers(request.url.split('?')[0] ?? ''),
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
  if (config.logFormat === 'json') return pino(loggerOptions(config));
  return pino(loggerOptions(config), prettyStream());
}

/** A request line as a person reads it: `GET /path 201 12 ms (req-1)`. */
function requestLine(log: Record<string, unknown>, messageKey: string): string {
  const request = log.req as { method?: string; path?: string } | undefined;
  const status = (log.res as { statusCode?: number } | undefined)?.statusCode;
  if (request === undefined || status === undefined) return String(log[messageKey] ?? '');
  const ms = typeof log.responseTime === 'number' ? ` ${Math.round(log.responseTime)} ms` : '';
  return `${request.method} ${request.path} ${status}${ms} (${String(log.reqId)})`;
}

/**
 * pino-pretty as the logger's stream, loaded only when the pretty format is chosen: a process that logs
 * JSON (a container, a collector) never reads it. The fields a message already says stay out of the
 * line; an error keeps its stack.
 */
function prettyStream(): DestinationStream {
  const pretty = createRequire(import.meta.url)('pino-pretty') as (
    options: PrettyOptions,
  ) => DestinationStream;
  return pretty({
    translateTime: 'SYS:HH:MM:ss.l',
    // The message says what the fields say; an error's message and stack follow it.
    include: 'level,time,err',
    messageFormat: requestLine,
  });
}
