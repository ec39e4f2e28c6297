// The origin and base path of links we hand out: PUBLIC_URL when set, else the request's own origin
// (behind a proxy with TRUST_PROXY, the one X-Forwarded-Proto and X-Forwarded-Host name).
import type { FastifyRequest } from 'fastify';
import type { Config } from '../config.ts';

export function originOf(config: Config, request: Pick<FastifyRequest, 'protocol' | 'host'>): string {
  return config.publicUrl ?? `${request.protocol}://${request.host}`;
}

export function baseUrlOf(config: Config, request: Pick<FastifyRequest, 'protocol' | 'host'>): string {
  return originOf(config, request) + config.basePath;
}
