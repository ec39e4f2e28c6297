// The gateway's log: pino, with each request's method, path, correlation id and, as API-NOTES asks,
// the PSU-IP-Address the TPP sent. Tokens and query strings (which carry one-time codes) are left out.
import type { FastifyRequest } from 'fastify';
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

export function createLogger(config: Config): Logger {
  return pino(loggerOptions(config));
}
