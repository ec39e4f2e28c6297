// Who a request's audit records name (issue 39): the TPP and app its headers named, the certificate of
// its connection, the PSU of its token, its client address and its correlation id (TPP-Request-ID or
// X-Request-ID, as the request log has them, else the request's own id).
import type { FastifyRequest } from 'fastify';
import type { AuditActor } from '../domain/audit.ts';
import { peerIdentity } from './mtls.ts';

function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return typeof value === 'string' ? value : undefined;
}

export function auditActorOf(request: FastifyRequest): AuditActor {
  const identity = peerIdentity(request);
  return {
    tppId: request.tpp?.app.tppId ?? null,
    appId: request.tpp?.app.clientId ?? null,
    // A refused certificate is named too: certificate.refused says which one.
    certificate:
      identity.kind === 'qwac'
        ? identity.qwac.thumbprint
        : identity.kind === 'refused'
          ? identity.thumbprint
          : null,
    psuId: request.grant?.psuId ?? null,
    address: request.ip,
    correlationId:
      request.tpp?.requestId ??
      header(request, 'tpp-request-id') ??
      header(request, 'x-request-id') ??
      request.id,
  };
}
