// TLS_CRL over real TLS connections: the gateway checks revocation itself, so that every refused
// certificate is a 401 in the API's shape. Before, OpenSSL looked CRLs up by the issuer's name: a
// certificate from an untrusted CA bearing the trusted CA's name failed the handshake (a reset). The
// CRL is the one of the trusted CA whose key signed the certificate, not of whatever CA certificate the
// client sent along with its own bearing the same name and key identifier.
import 'reflect-metadata';
import assert from 'node:assert/strict';
import { webcrypto } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { connect } from 'node:tls';
import { SubjectKeyIdentifierExtension, X509CertificateGenerator } from '@peculiar/x509';
import {
  createCa,
  createCrl,
  type Issued,
  issueQwac,
  issueServerCertificate,
} from '../../src/certificates/issue.ts';
import { ConfigError } from '../../src/config.ts';
import { type Gateway, startGateway } from '../helpers/gateway.ts';
import { errorBody } from '../helpers/http.ts';

const ORG = 'PSDSE-FINA-44059';
const qwacOf = (ca: Issued) =>
  issueQwac(ca, { organizationIdentifier: ORG, organizationName: 'Budget Buddy AB', roles: ['PSP_PI'] });

/**
 * POST /psd2/v1/third-parties as one HTTP/1.1 request written on a raw TLS connection (as curl does);
 * answers the status and the JSON body, or how the connection ended without an answer.
 */
function enroll(
  url: string,
  ca: string,
  client: Issued,
  /** Certificates the client sends after its own (PEM). */
  chain = '',
): Promise<{ status: number; body: unknown } | string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect(
      {
        host: '127.0.0.1',
        port: Number(port),
        servername: hostname,
        ca,
        cert: `${client.certificatePem}${chain}`,
        key: client.keyPem,
      },
      () =>
        socket.write(
          'POST /psd2/v1/third-parties HTTP/1.1\r\nHost: localhost\r\nTPP-Request-ID: r-1\r\nTPP-Transaction-ID: t-1\r\nAccept: application/json\r\nContent-Length: 0\r\nConnection: close\r\n\r\n',
        ),
    );
    let text = '';
    socket.on('data', (chunk: Buffer) => {
      text += chunk.toString();
    });
    socket.on('error', (error: Error & { code?: string }) => resolve(`error ${error.code ?? error.message}`));
    socket.on('close', () => {
      const status = /^HTTP\/1\.1 (\d{3})/.exec(text)?.[1];
      if (status === undefined) return resolve(text === '' ? 'closed without an answer' : text);
      const body = text.slice(text.indexOf('\r\n\r\n') + 4);
      resolve({ status: Number(status), body: body === '' ? '' : JSON.parse(body) });
    });
  });
}

const UNAUTHORIZED = (text: string) => ({
  status: 401,
  body: errorBody(401, 'Unauthorized', { code: 'CERTIFICATE_INVALID', text }),
});

describe('TLS_CRL', () => {
  let ca: Issued;
  let secondCa: Issued;
  let server: Issued;
  let gateway: Gateway;
  const certs = {} as Record<'good' | 'revoked' | 'impostor' | 'ofSecondCa', Issued>;
  before(async () => {
    ca = await createCa();
    // Another CA with the very same name, trusted by nobody.
    const impostorCa = await createCa();
    secondCa = await createCa('CN=Second CA,O=psd2-gateway,C=SE');
    server = await issueServerCertificate(ca);
    certs.good = await qwacOf(ca);
    certs.revoked = await qwacOf(ca);
    certs.impostor = await qwacOf(impostorCa);
    certs.ofSecondCa = await qwacOf(secondCa);
    gateway = await startGateway({
      config: { mode: 'live' },
      tls: {
        key: server.keyPem,
        cert: server.certificatePem,
        // Two trusted CAs, a CRL for the first only.
        ca: `${ca.certificatePem}\n${secondCa.certificatePem}`,
        crl: await createCrl(ca, [certs.revoked.serialNumber]),
      },
    });
  });
  after(() => gateway?.close());

  test("a certificate of an untrusted CA bearing the trusted CA's name: 401, not a reset connection", async () => {
    // One trusted CA and its CRL, as the operator's start makes them.
    const single = await startGateway({
      config: { mode: 'live' },
      tls: {
        key: server.keyPem,
        cert: server.certificatePem,
        ca: ca.certificatePem,
        crl: await createCrl(ca, []),
      },
    });
    try {
      assert.deepEqual(
        await enroll(single.url, ca.certificatePem, certs.impostor),
        UNAUTHORIZED('The certificate is not issued by a trusted authority'),
      );
    } finally {
      await single.close();
    }
    assert.deepEqual(
      await enroll(gateway.url, ca.certificatePem, certs.impostor),
      UNAUTHORIZED('The certificate is not issued by a trusted authority'),
    );
  });

  test('revoked: 401; not revoked: enrolled; a trusted CA without a CRL: 401, its status unknown', async () => {
    assert.deepEqual(
      await enroll(gateway.url, ca.certificatePem, certs.revoked),
      UNAUTHORIZED('The certificate has been revoked'),
    );
    assert.deepEqual(await enroll(gateway.url, ca.certificatePem, certs.good), {
      status: 201,
      body: { clientId: 'SE-FINA-44059' },
    });
    assert.deepEqual(
      await enroll(gateway.url, ca.certificatePem, certs.ofSecondCa),
      UNAUTHORIZED('The revocation status of the certificate is unknown'),
    );
  });

  test("an impostor CA with the trusted CA's name and key identifier: its certificates refused, and sent along it changes no status", async () => {
    // A CA of its own key that claims the trusted CA's name and subject key identifier, trusted by nobody.
    const keys = (await webcrypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, [
      'sign',
      'verify',
    ])) as CryptoKeyPair;
    const keyId = ca.certificate.getExtension(SubjectKeyIdentifierExtension)!.keyId;
    const impostorCa = await X509CertificateGenerator.createSelfSigned({
      serialNumber: '02',
      name: ca.certificate.subject,
      notBefore: ca.certificate.notBefore,
      notAfter: ca.certificate.notAfter,
      keys,
      signingAlgorithm: { name: 'ECDSA', hash: 'SHA-256' },
      extensions: [
        ...ca.certificate.extensions.filter(
          (extension) => !(extension instanceof SubjectKeyIdentifierExtension),
        ),
        new SubjectKeyIdentifierExtension(keyId),
      ],
    });
    const impostorPem = `\n${impostorCa.toString('pem')}\n`;
    // Its certificate names the trusted CA as issuer, by name and key identifier, signed by its own key.
    const impostor = await qwacOf({
      ...ca,
      certificate: impostorCa,
      keys: { publicKey: ca.keys.publicKey, privateKey: keys.privateKey },
    });
    assert.deepEqual(
      await enroll(gateway.url, ca.certificatePem, impostor, impostorPem),
      UNAUTHORIZED('The certificate is not issued by a trusted authority'),
    );
    // The trusted CA's certificates, sent with the impostor CA's: the trusted CA's CRL still decides.
    assert.deepEqual(
      await enroll(gateway.url, ca.certificatePem, certs.revoked, impostorPem),
      UNAUTHORIZED('The certificate has been revoked'),
    );
    // A TPP of its own: enrolled here, not before.
    const good = await issueQwac(ca, {
      organizationIdentifier: 'PSDSE-FINA-44060',
      organizationName: 'Spargris AB',
      roles: ['PSP_AI'],
    });
    assert.deepEqual(await enroll(gateway.url, ca.certificatePem, good, impostorPem), {
      status: 201,
      body: { clientId: 'SE-FINA-44060' },
    });
  });

  test('a CRL that no trusted CA signed stops the start, naming TLS_CRL', async () => {
    const stranger = await createCa('CN=Stranger,O=Elsewhere,C=SE');
    for (const [crl, message] of [
      [
        await createCrl(stranger, []),
        'holds a CRL that no CA of TLS_CLIENT_CA signed (issuer CN=Stranger, O=Elsewhere, C=SE)',
      ],
      ['not a CRL', 'holds no CRL (PEM, -----BEGIN X509 CRL-----)'],
    ] as const) {
      await assert.rejects(
        startGateway({
          config: { mode: 'live' },
          tls: { key: server.keyPem, cert: server.certificatePem, ca: ca.certificatePem, crl },
        }),
        new ConfigError('TLS_CRL', message),
      );
    }
  });
});
