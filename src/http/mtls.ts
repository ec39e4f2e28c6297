// The TPP's certificate from the TLS connection, read once per connection. The server asks for a
// certificate but does not reject the handshake without one, so that a missing, untrusted, expired
// or revoked certificate is answered with the API's own error codes.
import type { Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import type { FastifyRequest } from 'fastify';
import { type PeerIdentity, qwacReader } from '../certificates/qwac.ts';

const identities = new WeakMap<Socket, PeerIdentity>();

function identify(socket: TLSSocket): PeerIdentity {
  const peer = socket.getPeerCertificate(false);
  if (peer === null || Object.keys(peer).length === 0 || peer.raw === undefined) return { kind: 'none' };
  if (!socket.authorized) {
    const reason = String(socket.authorizationError ?? 'unknown');
    if (reason === 'CERT_HAS_EXPIRED')
      return { kind: 'refused', code: 'CERTIFICATE_EXPIRED', text: 'The certificate has expired' };
    if (reason === 'CERT_NOT_YET_VALID')
      return { kind: 'refused', code: 'CERTIFICATE_INVALID', text: 'The certificate is not valid yet' };
    if (reason === 'CERT_REVOKED')
      return { kind: 'refused', code: 'CERTIFICATE_INVALID', text: 'The certificate has been revoked' };
    return {
      kind: 'refused',
      code: 'CERTIFICATE_INVALID',
      text: 'The certificate is not issued by a trusted authority',
    };
  }
  const read = qwacReader()(peer.raw);
  if (!read.ok)
    return {
      kind: 'refused',
      code: 'CERTIFICATE_INVALID',
      text: `The certificate is not a PSD2 certificate: ${read.reason}`,
    };
  return { kind: 'qwac', qwac: read.qwac };
}

export function peerIdentity(request: FastifyRequest): PeerIdentity {
  const socket = request.raw.socket;
  if (!('getPeerCertificate' in socket)) return { kind: 'none' };
  let identity = identities.get(socket);
  if (identity === undefined) {
    identity = identify(socket as TLSSocket);
    identities.set(socket, identity);
  }
  return identity;
}
