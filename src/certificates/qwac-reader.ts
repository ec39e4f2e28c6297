// Reading a TPP's certificate (QWAC or UK OBWAC): the organizationIdentifier, the PSD2 roles and the
// competent authority, matched by OID, never by parsing a printed subject.
import 'reflect-metadata';
import { createHash } from 'node:crypto';
import { AsnParser } from '@peculiar/asn1-schema';
import { X509Certificate } from '@peculiar/x509';
import { roleOfOid, scopesOfRoles, tppIdOf } from '../domain/psp-roles.ts';
import {
  ORGANIZATION_IDENTIFIER_OID,
  PSD2_QC_TYPE_OID,
  Psd2QcType,
  QC_STATEMENTS_OID,
  QcStatements,
} from './qc-statement.ts';
import type { QwacResult } from './qwac-types.ts';

function psd2Statement(certificate: X509Certificate): Psd2QcType | undefined {
  const extension = certificate.getExtension(QC_STATEMENTS_OID);
  if (extension === null) return undefined;
  const statements = AsnParser.parse(extension.value, QcStatements);
  const statement = statements.find((item) => item.statementId === PSD2_QC_TYPE_OID);
  return statement?.statementInfo === undefined
    ? undefined
    : AsnParser.parse(statement.statementInfo, Psd2QcType);
}

export function readQwac(der: Uint8Array): QwacResult {
  let certificate: X509Certificate;
  try {
    certificate = new X509Certificate(new Uint8Array(der));
  } catch {
    return { ok: false, reason: 'the certificate cannot be read' };
  }
  const organizationIdentifier = certificate.subjectName.getField(ORGANIZATION_IDENTIFIER_OID)[0];
  const tppId = organizationIdentifier === undefined ? undefined : tppIdOf(organizationIdentifier);
  if (organizationIdentifier === undefined || tppId === undefined) {
    return { ok: false, reason: 'the certificate carries no PSD2 organizationIdentifier' };
  }
  let statement: Psd2QcType | undefined;
  try {
    statement = psd2Statement(certificate);
  } catch {
    return { ok: false, reason: 'the PSD2 QCStatement cannot be read' };
  }
  if (statement === undefined) return { ok: false, reason: 'the certificate carries no PSD2 QCStatement' };
  const roles = Array.from(statement.rolesOfPSP, (role) => roleOfOid(role.roleOfPspOid)).filter(
    (role) => role !== undefined,
  );
  return {
    ok: true,
    qwac: {
      organizationIdentifier,
      tppId,
      organizationName:
        certificate.subjectName.getField('O')[0] ?? certificate.subjectName.getField('CN')[0] ?? tppId,
      roles,
      scopes: scopesOfRoles(roles),
      ncaName: statement.nCAName,
      ncaId: statement.nCAId,
      notBefore: certificate.notBefore,
      notAfter: certificate.notAfter,
      thumbprint: createHash('sha256').update(der).digest('hex'),
      base64: Buffer.from(der).toString('base64'),
    },
  };
}
