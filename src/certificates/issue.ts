// Test certificates for live mode: a CA, QWACs with chosen PSD2 roles, organization identifier and
// validity, a server certificate and a CRL, as PEM (the `psd2-gateway cert` command and the tests).
import 'reflect-metadata';
import { webcrypto } from 'node:crypto';
import { AsnSerializer } from '@peculiar/asn1-schema';
import {
  AuthorityKeyIdentifierExtension,
  BasicConstraintsExtension,
  cryptoProvider,
  ExtendedKeyUsageExtension,
  Extension,
  KeyUsageFlags,
  KeyUsagesExtension,
  PemConverter,
  SubjectAlternativeNameExtension,
  SubjectKeyIdentifierExtension,
  X509Certificate,
  X509CertificateGenerator,
  X509CrlGenerator,
} from '@peculiar/x509';
import { oidOfRole, type PspRole } from '../domain/psp-roles.ts';
import {
  PSD2_QC_TYPE_OID,
  Psd2QcType,
  QC_STATEMENTS_OID,
  QcStatement,
  QcStatements,
  RoleOfPsp,
  RolesOfPsp,
} from './qc-statement.ts';

cryptoProvider.set(webcrypto as unknown as Crypto);

const ALGORITHM = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;

export interface Issued {
  readonly certificatePem: string;
  readonly keyPem: string;
  readonly serialNumber: string;
  readonly certificate: X509Certificate;
  readonly keys: CryptoKeyPair;
}

async function newKeys(): Promise<CryptoKeyPair> {
  return webcrypto.subtle.generateKey(ALGORITHM, true, ['sign', 'verify']) as Promise<CryptoKeyPair>;
}

async function issued(
  certificate: X509Certificate,
  keys: CryptoKeyPair,
  serialNumber: string,
): Promise<Issued> {
  return {
    certificatePem: certificate.toString('pem'),
    keyPem: await keyPem(keys),
    serialNumber,
    certificate,
    keys,
  };
}

async function keyPem(keys: CryptoKeyPair): Promise<string> {
  return PemConverter.encode(await webcrypto.subtle.exportKey('pkcs8', keys.privateKey), 'PRIVATE KEY');
}

function serial(): string {
  return `01${Buffer.from(webcrypto.getRandomValues(new Uint8Array(15))).toString('hex')}`;
}

const days = (count: number) => count * 86_400_000;

/** The subject of a test CA named `commonName` (as a JSON name: a comma in it stays in the name). */
export function caSubject(commonName: string): { [type: string]: string[] }[] {
  return [{ CN: [commonName] }, { O: ['psd2-gateway'] }, { C: ['SE'] }];
}

export async function createCa(
  name: string | { [type: string]: string[] }[] = caSubject('psd2-gateway test CA'),
  validDays = 3650,
): Promise<Issued> {
  const keys = await newKeys();
  const serialNumber = serial();
  const certificate = await X509CertificateGenerator.createSelfSigned({
    serialNumber,
    name,
    notBefore: new Date(Date.now() - days(1)),
    notAfter: new Date(Date.now() + days(validDays)),
    keys,
    signingAlgorithm: ALGORITHM,
    extensions: [
      new BasicConstraintsExtension(true, undefined, true),
      new KeyUsagesExtension(KeyUsageFlags.keyCertSign | KeyUsageFlags.cRLSign, true),
      await SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  return issued(certificate, keys, serialNumber);
}

export interface QwacParams {
  /** e.g. PSDSE-FINA-44059 */
  readonly organizationIdentifier: string;
  readonly organizationName: string;
  readonly roles: readonly PspRole[];
  readonly ncaName?: string;
  readonly ncaId?: string;
  readonly notBefore?: Date;
  readonly notAfter?: Date;
  readonly country?: string;
}

function qcStatementsExtension(params: QwacParams): Extension {
  const psd2 = new Psd2QcType({
    rolesOfPSP: new RolesOfPsp(
      params.roles.map((role) => new RoleOfPsp({ roleOfPspOid: oidOfRole(role), roleOfPspName: role })),
    ),
    nCAName: params.ncaName ?? 'Finansinspektionen',
    nCAId: params.ncaId ?? params.organizationIdentifier.slice(3).split('-').slice(0, 2).join('-'),
  });
  const statements = new QcStatements([
    new QcStatement({ statementId: PSD2_QC_TYPE_OID, statementInfo: AsnSerializer.serialize(psd2) }),
  ]);
  return new Extension(QC_STATEMENTS_OID, false, AsnSerializer.serialize(statements));
}

export async function issueQwac(ca: Issued, params: QwacParams): Promise<Issued> {
  const keys = await newKeys();
  const serialNumber = serial();
  const country = params.country ?? params.organizationIdentifier.slice(3, 5);
  const certificate = await X509CertificateGenerator.create({
    serialNumber,
    subject: [
      { CN: [params.organizationName] },
      { O: [params.organizationName] },
      { C: [country] },
      { '2.5.4.97': [params.organizationIdentifier] },
    ],
    issuer: ca.certificate.subject,
    notBefore: params.notBefore ?? new Date(Date.now() - days(1)),
    notAfter: params.notAfter ?? new Date(Date.now() + days(365)),
    publicKey: keys.publicKey,
    signingKey: ca.keys.privateKey,
    signingAlgorithm: ALGORITHM,
    extensions: [
      new BasicConstraintsExtension(false),
      new KeyUsagesExtension(KeyUsageFlags.digitalSignature, true),
      new ExtendedKeyUsageExtension(['1.3.6.1.5.5.7.3.2']),
      await AuthorityKeyIdentifierExtension.create(ca.keys.publicKey),
      qcStatementsExtension(params),
    ],
  });
  return issued(certificate, keys, serialNumber);
}

export async function issueServerCertificate(
  ca: Issued,
  hostnames: readonly string[] = ['localhost', '127.0.0.1'],
): Promise<Issued> {
  const keys = await newKeys();
  const serialNumber = serial();
  const certificate = await X509CertificateGenerator.create({
    serialNumber,
    subject: `CN=${hostnames[0]}`,
    issuer: ca.certificate.subject,
    notBefore: new Date(Date.now() - days(1)),
    notAfter: new Date(Date.now() + days(825)),
    publicKey: keys.publicKey,
    signingKey: ca.keys.privateKey,
    signingAlgorithm: ALGORITHM,
    extensions: [
      new BasicConstraintsExtension(false),
      new ExtendedKeyUsageExtension(['1.3.6.1.5.5.7.3.1']),
      new SubjectAlternativeNameExtension(
        hostnames.map((name) => ({
          type: /^[\d.]+$/.test(name) ? ('ip' as const) : ('dns' as const),
          value: name,
        })),
      ),
    ],
  });
  return issued(certificate, keys, serialNumber);
}

/** A CRL of the CA revoking the given serial numbers. */
export async function createCrl(ca: Issued, revokedSerials: readonly string[]): Promise<string> {
  const crl = await X509CrlGenerator.create({
    issuer: ca.certificate.subject,
    thisUpdate: new Date(Date.now() - 60_000),
    nextUpdate: new Date(Date.now() + days(30)),
    signingKey: ca.keys.privateKey,
    signingAlgorithm: ALGORITHM,
    entries: revokedSerials.map((serialNumber) => ({
      serialNumber,
      revocationDate: new Date(Date.now() - 60_000),
    })),
  });
  // OpenSSL (and so Node's TLS) reads CRLs under the label X509 CRL.
  return PemConverter.encode(crl.rawData, 'X509 CRL');
}

/** A CA (or any certificate) back from its PEM files, to sign with it again. */
export async function loadIssued(certificatePem: string, keyPem: string): Promise<Issued> {
  const certificate = new X509Certificate(certificatePem);
  const privateKey = await webcrypto.subtle.importKey(
    'pkcs8',
    PemConverter.decodeFirst(keyPem),
    ALGORITHM,
    true,
    ['sign'],
  );
  const publicKey = await certificate.publicKey.export(ALGORITHM, ['verify']);
  return {
    certificatePem,
    keyPem,
    serialNumber: certificate.serialNumber,
    certificate,
    keys: { privateKey, publicKey } as CryptoKeyPair,
  };
}
