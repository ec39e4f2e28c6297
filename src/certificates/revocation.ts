// The revocation lists of TLS_CRL, checked by the gateway rather than by OpenSSL. Given CRLs, OpenSSL
// looks them up by the issuer's name alone: a certificate from an untrusted CA that bears a trusted
// CA's name then fails the handshake with an error of its own (ERR_SSL_EVP_LIB), and the TPP gets a
// reset connection instead of 401 CERTIFICATE_INVALID. Here a CRL counts only once its signature was
// checked against a CA of TLS_CLIENT_CA, and a certificate is looked up in the CRL of the trusted CA
// whose key signed it (its signature checked here): not of the issuer Node names on the connection,
// which it takes from the certificates the client sent, matched by name and key identifier alone. As
// with OpenSSL's CRL check, a certificate whose issuer has no CRL, or whose CRL is past its next update,
// is refused: its revocation status is unknown.
import 'reflect-metadata';
import { X509Certificate as NodeCertificate, webcrypto } from 'node:crypto';
import { cryptoProvider, PemConverter, X509Certificate, X509Crl } from '@peculiar/x509';

cryptoProvider.set(webcrypto as unknown as Crypto);

export type RevocationStatus = 'good' | 'revoked' | 'unknown';

/** The CRLs of the trusted CAs. */
export interface Revocations {
  /** The status of a certificate at `now`, in the CRL of the trusted CA that signed it. */
  status(certificate: NodeCertificate, now: Date): RevocationStatus;
}

/** Thrown at start: a CRL that no CA of the bundle signed is a mistake in the settings. */
export class RevocationListError extends Error {
  override name = 'RevocationListError';
}

const normalSerial = (hex: string) => BigInt(`0x${hex}`).toString(16);

interface KeptList {
  readonly revoked: ReadonlySet<string>;
  readonly nextUpdate: Date | undefined;
}

/** Reads the CRLs (PEM, one or more) and checks each against the CAs (PEM bundle) it must come from. */
export async function readRevocations(caBundlePem: string, crlPem: string): Promise<Revocations> {
  const cas = PemConverter.decode(caBundlePem).map((der) => new X509Certificate(der));
  const trusted = cas.map((ca) => new NodeCertificate(Buffer.from(ca.rawData)));
  /** By the fingerprint of each CA certificate whose key signed the CRL. */
  const lists = new Map<string, KeptList>();
  const crls = PemConverter.decode(crlPem).map((der) => new X509Crl(der));
  if (crls.length === 0) throw new RevocationListError('holds no CRL (PEM, -----BEGIN X509 CRL-----)');
  for (const crl of crls) {
    const signers: string[] = [];
    for (const [index, ca] of cas.entries()) {
      if (ca.subject === crl.issuer && (await crl.verify({ publicKey: ca })))
        signers.push(trusted[index]!.fingerprint256);
    }
    if (signers.length === 0)
      throw new RevocationListError(`holds a CRL that no CA of TLS_CLIENT_CA signed (issuer ${crl.issuer})`);
    for (const fingerprint of signers) {
      const kept = lists.get(fingerprint);
      // Of two CRLs of one CA, the later one counts.
      if (kept !== undefined && (kept.nextUpdate?.getTime() ?? 0) >= (crl.nextUpdate?.getTime() ?? 0))
        continue;
      lists.set(fingerprint, {
        revoked: new Set(crl.entries.map((entry) => normalSerial(entry.serialNumber))),
        nextUpdate: crl.nextUpdate,
      });
    }
  }
  return {
    status(certificate, now) {
      // The trusted CAs that issued it: the name and key identifier, and the signature checked.
      const issuers = trusted.filter((ca) => certificate.checkIssued(ca) && certificate.verify(ca.publicKey));
      const list = issuers
        .map((ca) => lists.get(ca.fingerprint256))
        .find((candidate) => candidate !== undefined);
      if (list === undefined) return 'unknown';
      if (list.nextUpdate !== undefined && list.nextUpdate.getTime() < now.getTime()) return 'unknown';
      return list.revoked.has(normalSerial(certificate.serialNumber)) ? 'revoked' : 'good';
    },
  };
}
