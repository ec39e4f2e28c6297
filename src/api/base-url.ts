// The origin and base path of links we hand out: PUBLIC_URL when set, else the request's own origin.
import type { FastifyRequest } from 'fastify';
import type { Config } from '../config.ts';

export function baseUrlOf(config: Config, request: FastifyRequest): string {
  const origin = config.publicUrl ?? `${request.protocol}://${request.host}`;
  return origin + config.basePath;
}
