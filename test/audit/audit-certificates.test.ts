// Audit records of onboarding over real mutual TLS (issue 39): an enrolment names the certificate
// presented; each refused certificate (missing, from an untrusted issuer, expired, revoked, without a
// PSD2 role, removed by the bank) is a certificate.refused record naming it, and nothing else is
// written. Live mode on loopback, on PGlite, and on PostgreSQL when TEST_DATABASE_URL is set.
import assert from 'node:assert/strict';
import { createHash, X509Certificate } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import {
  createCa,
  createCrl,
  type Issued,
  issueQwac,
  issueServerCertificate,
} from '../../src/certificates/issue.ts';
import { removeCertificate } from '../../src/store/tpps-repository.ts';
import { auditRecordsSince, lastAuditSeq } from '../helpers/audit.ts';
import { backends, type Gateway, startGateway } from '../helpers/gateway.ts';
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

    const nobody = { tppId: null, appId: null, psuId: null, address: '127.0.0.1' };

    test('enrolment names the TPP and the certificate presented', async () => {
      const start = await lastAuditSeq(gateway);
      assert.deepEqual(await enrol(certs.good, 'enrol-1'), { status: 201, body: { clientId: TPP } });
      const actor = { ...nobody, tppId: TPP, certificate: thumbprint(certs.good), correlationId: 'enrol-1' };
      const records = await auditRecordsSince(gateway, start);
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
      // What each answers is third-parties.test.ts's; here, that the record says the same.
      const cases: [Issued | undefined, string][] = [
        [undefined, 'CERTIFICATE_MISSING'],
        [certs.untrusted, 'CERTIFICATE_INVALID'],
        [certs.expired, 'CERTIFICATE_EXPIRED'],
        [certs.revoked, 'CERTIFICATE_INVALID'],
        [certs.roleless, 'ROLE_INVALID'],
        [certs.second, 'CERTIFICATE_INVALID'],
      ];
      for (const [index, [client, code]] of cases.entries()) {
        const start = await lastAuditSeq(gateway);
        const answer = await enrol(client, `refused-${index}`);
        const [message] = (answer.body as { tppMessages: { code: string; text: string }[] }).tppMessages;
        assert.equal(message?.code, code, JSON.stringify(answer.body));
        const reason = message.text;
        const certificate = client === undefined ? null : thumbprint(client);
        assert.deepEqual(
          await auditRecordsSince(gateway, start),
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
