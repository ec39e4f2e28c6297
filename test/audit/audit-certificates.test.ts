// Audit records of onboarding over real mutual TLS (issue 39): an enrolment names the certificate
// presented; each refused certificate (missing, from an untrusted issuer, expired, revoked, without a
// PSD2 role, removed by the bank) is a certificate.refused record naming it, and nothing else is
// written. Live mode on loopback, on PGlite, and on PostgreSQL when TEST_DATABASE_URL is set.
import assert from 'node:assert/strict';
import { createHash, X509Certificate } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import {
  createCa,
  createCrl,
  type Issued,
  issueQwac,
  issueServerCertificate,
} from '../../src/certificates/issue.ts';
import { removeCertificate } from '../../src/store/tpps-repository.ts';
import { type AuditRecordRow, auditRecords } from '../helpers/audit.ts';
import { backends, type Gateway, queryRows, startGateway } from '../helpers/gateway.ts';
import { type ClientCertificate, tlsRequest } from '../helpers/tls.ts';

const ORG = 'PSDSE-FINA-44059';
const TPP = 'SE-FINA-44059';

const thumbprint = (issued: Issued) =>
  createHash('sha256').update(new X509Certificate(issued.certificatePem).raw).digest('hex');

for (const backend of backends()) {
  describe(`certificate audit records on ${backend} (live, mutual TLS)`, () => {
    let ca: Issued;
    let gateway: Gateway;
    const certs = {} as Record<'good' | 'second' | 'expired' | 'revoked' | 'roleless' | 'untrusted', Issued>;

    before(async () => {
      ca = await createCa();
      const qwac = (roles: ('PSP_PI' | 'PSP_AS')[], extra = {}) =>
        issueQwac(ca, { organizationIdentifier: ORG, organizationName: 'Budget Buddy AB', roles, ...extra });
      certs.good = await qwac(['PSP_PI']);
      certs.second = await qwac(['PSP_PI']);
      certs.expired = await qwac(['PSP_PI'], {
        notBefore: new Date(Date.now() - 20 * 86_400_000),
        notAfter: new Date(Date.now() - 86_400_000),
      });
      certs.revoked = await qwac(['PSP_PI']);
      certs.roleless = await qwac(['PSP_AS']);
      certs.untrusted = await issueQwac(await createCa('CN=Someone else,O=Elsewhere,C=SE'), {
        organizationIdentifier: ORG,
        organizationName: 'Budget Buddy AB',
        roles: ['PSP_PI'],
      });
      const server = await issueServerCertificate(ca);
      gateway = await startGateway({
        backend,
        config: { mode: 'live', auditSealIntervalMs: 0 },
        tls: {
          key: server.keyPem,
          cert: server.certificatePem,
          ca: ca.certificatePem,
          crl: await createCrl(ca, [certs.revoked.serialNumber]),
        },
      });
    });
    after(() => gateway?.close());

    function enrol(client: ClientCertificate | undefined, requestId: string) {
      return tlsRequest(`${gateway.url}/psd2/v1/third-parties`, {
        method: 'POST',
        ca: ca.certificatePem,
        ...(client === undefined ? {} : { client }),
        headers: { 'TPP-Request-ID': requestId, 'TPP-Transaction-ID': 't-1', Accept: 'application/json' },
      });
    }

    async function since(after: string): Promise<Omit<AuditRecordRow, 'seq'>[]> {
      return (await auditRecords(gateway, { after })).map(({ seq: _, ...row }) => row);
    }

    async function lastSeq(): Promise<string> {
      const [row] = await queryRows<{ seq: string }>(
        gateway.store,
        sql`SELECT COALESCE(max(seq), 0)::text AS seq FROM audit_events`,
      );
      return row!.seq;
    }

    const nobody = { tppId: null, appId: null, psuId: null, address: '127.0.0.1' };

    test('enrolment names the TPP and the certificate presented', async () => {
      const start = await lastSeq();
      assert.deepEqual(await enrol(certs.good, 'enrol-1'), { status: 201, body: { clientId: TPP } });
      const actor = { ...nobody, tppId: TPP, certificate: thumbprint(certs.good), correlationId: 'enrol-1' };
      const records = await since(start);
      assert.deepEqual(records, [
        {
          event: 'tpp.enrolled',
          outcome: 'ok',
          resource: TPP,
          ...actor,
          detail: { name: 'Budget Buddy AB' },
        },
        {
          event: 'certificate.added',
          outcome: 'ok',
          resource: thumbprint(certs.good),
          ...actor,
          detail: { scopes: ['CBPII', 'PIS'], notAfter: records[1]?.detail?.notAfter },
        },
      ]);
      assert.equal(
        records[1]?.detail?.notAfter,
        new Date(new X509Certificate(certs.good.certificatePem).validTo).toISOString(),
      );
    });

    test('each refused certificate: certificate.refused naming it, and nothing else', async () => {
      await enrol(certs.good, 'enrol-2');
      // The bank took the second certificate out of the TPP's set before the TPP presented it.
      await enrol(certs.second, 'enrol-3');
      assert.equal(await removeCertificate(gateway.store.db, thumbprint(certs.second), new Date()), TPP);
      const cases: [Issued | undefined, number, string, string][] = [
        [
          undefined,
          401,
          'CERTIFICATE_MISSING',
          'A qualified certificate (QWAC or OBWAC) must be presented in TLS',
        ],
        [certs.untrusted, 401, 'CERTIFICATE_INVALID', 'The certificate is not issued by a trusted authority'],
        [certs.expired, 401, 'CERTIFICATE_EXPIRED', 'The certificate has expired'],
        [certs.revoked, 401, 'CERTIFICATE_INVALID', 'The certificate has been revoked'],
        [
          certs.roleless,
          403,
          'ROLE_INVALID',
          'The certificate carries none of the roles PSP_PI, PSP_AI, PSP_IC',
        ],
        [certs.second, 401, 'CERTIFICATE_INVALID', 'The certificate has been removed by the bank'],
      ];
      for (const [index, [client, status, code, reason]] of cases.entries()) {
        const start = await lastSeq();
        const answer = await enrol(client, `refused-${index}`);
        assert.equal(answer.status, status, JSON.stringify(answer.body));
        const certificate = client === undefined ? null : thumbprint(client);
        assert.deepEqual(
          await since(start),
          [
            {
              event: 'certificate.refused',
              outcome: code,
              resource: certificate,
              ...nobody,
              certificate,
              correlationId: `refused-${index}`,
              detail: { reason },
            },
          ],
          code,
        );
      }
    });
  });
}
