// The TPP's certificate from the TLS connection, read once per connection. The server asks for a
// certificate but does not reject the handshake without one, so that a missing, untrusted, expired
// or revoked certificate is answered with the API's own error codes.
// Revocation (TLS_CRL) is checked here, not by OpenSSL (certificates/revocation.ts says why).
import { createHash } from 'node:crypto';
import type { EventEmitter } from 'node:events';
import type { Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import type { FastifyRequest } from 'fastify';
import { type PeerIdentity, qwacReader } from '../certificates/qwac.ts';
import type { Revocations } from '../certificates/revocation.ts';
import { ConfigError } from '../config.ts';

const identities = new WeakMap<Socket, PeerIdentity>();
/** The CRLs of the server a connection came to, where it has some. */
const revocationsOf = new WeakMap<Socket, Revocations>();

/**
 * Checks the certificates of the server's connections against the CRLs (PEM) of its trusted issuers
 * (PEM bundle); a CRL that none of them signed stops the start, naming TLS_CRL.
 */
export async function checkRevocations(server: EventEmitter, caBundle: string, crls: string): Promise<void> {
  // Loaded only here (TLS_CRL, live): the X.509 library is most of a megabyte of code a sandbox never runs.
  const { RevocationListError, readRevocations } = await import('../certificates/revocation.ts');
  let revocations: Revocations;
  try {
    revocations = await readRevocations(caBundle, crls);
  } catch (error) {
    if (error instanceof RevocationListError) throw new ConfigError('TLS_CRL', error.message);
    throw new ConfigError('TLS_CRL', 'is no CRL in PEM form');
  }
  server.on('secureConnection', (socket: TLSSocket) => revocationsOf.set(socket, revocations));
}

function identify(socket: TLSSocket): PeerIdentity {
  const peer = socket.getPeerCertificate();
  if (peer === null || Object.keys(peer).length === 0 || peer.raw === undefined) return { kind: 'none' };
  // A refused certificate's thumbprint, for the audit trail (certificate.refused); an accepted one's is
  // the QWAC reader's, so the hash is taken only on the refused paths.
  const refused = (code: 'CERTIFICATE_INVALID' | 'CERTIFICATE_EXPIRED', text: string): PeerIdentity => ({
    kind: 'refused',
    code,
    text,
    thumbprint: createHash('sha256').update(peer.raw).digest('hex'),
  });
  if (!socket.authorized) {
    const reason = String(socket.authorizationError ?? 'unknown');
    if (reason === 'CERT_HAS_EXPIRED') return refused('CERTIFICATE_EXPIRED', 'The certificate has expired');
    if (reason === 'CERT_NOT_YET_VALID')
      return refused('CERTIFICATE_INVALID', 'The certificate is not valid yet');
    return refused('CERTIFICATE_INVALID', 'The certificate is not issued by a trusted authority');
  }
  const revocations = revocationsOf.get(socket);
  if (revocations !== undefined) {
    // Authorized: TLS found an issuer among the trusted CAs. Which one is found again here, by its
    // signature: Node's issuerCertificate comes from the chain the client sent (revocation.ts).
    const status = revocations.status(socket.getPeerX509Certificate()!, new Date());
    if (status === 'revoked') return refused('CERTIFICATE_INVALID', 'The certificate has been revoked');
    if (status === 'unknown')
      return refused('CERTIFICATE_INVALID', 'The revocation status of the certificate is unknown');
  }
  const read = qwacReader()(peer.raw);
  if (!read.ok)
    return refused('CERTIFICATE_INVALID', `The certificate is not a PSD2 certificate: ${read.reason}`);
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
