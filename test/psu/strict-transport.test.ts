// Strict-Transport-Security on the PSU's pages: live over HTTPS a browser is told to come back over
// HTTPS only; the sandbox sends none (over HTTPS neither: a developer's localhost would stay HTTPS-only),
// and no answer over plain HTTP carries it (RFC 6797 7.2).
import assert from 'node:assert/strict';
import type { IncomingHttpHeaders } from 'node:http';
import { request } from 'node:https';
import { after, before, describe, test } from 'node:test';
import { createCa, type Issued, issueServerCertificate } from '../../src/certificates/issue.ts';
import { type Gateway, startGateway } from '../helpers/gateway.ts';
import { call } from '../helpers/http.ts';

const PAGES = ['/psu/eid', '/oauth2/authorize/1.0?client_id=nobody'];

/** A browser's GET over TLS (no client certificate): status and headers. */
function browserGet(url: string, ca: string): Promise<{ status: number; headers: IncomingHttpHeaders }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { ca, agent: false, headers: { accept: 'text/html' } }, (response) => {
      response.resume();
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('Strict-Transport-Security', () => {
  let ca: Issued;
  let tls: { key: string; cert: string };
  const gateways: Gateway[] = [];
  before(async () => {
    ca = await createCa();
    const server = await issueServerCertificate(ca);
    tls = { key: server.keyPem, cert: server.certificatePem };
  });
  after(async () => {
    for (const gateway of gateways) await gateway.close();
  });

  async function gateway(options: Parameters<typeof startGateway>[0]) {
    const started = await startGateway(options);
    gateways.push(started);
    return started;
  }

  test('live over HTTPS: a year, on every PSU page, its error page too', async () => {
    const live = await gateway({ config: { mode: 'live' }, tls: { ...tls, ca: ca.certificatePem } });
    for (const path of PAGES) {
      const answer = await browserGet(live.url + path, ca.certificatePem);
      assert.deepEqual(
        [answer.status, answer.headers['content-type'], answer.headers['strict-transport-security']],
        [path === '/psu/eid' ? 200 : 400, 'text/html; charset=utf-8', 'max-age=31536000'],
        path,
      );
    }
  });

  test('the sandbox over HTTPS sends none', async () => {
    const sandbox = await gateway({ tls });
    for (const path of PAGES) {
      const answer = await browserGet(sandbox.url + path, ca.certificatePem);
      assert.deepEqual(
        [answer.status, answer.headers['strict-transport-security']],
        [path === '/psu/eid' ? 200 : 400, undefined],
        path,
      );
    }
  });

  test('over plain HTTP none, live or sandbox', async () => {
    for (const mode of ['live', 'sandbox'] as const) {
      const plain = await gateway({ config: { mode } });
      for (const path of PAGES) {
        const answer = await call(plain.app, 'GET', path, { headers: { accept: 'text/html' } });
        assert.deepEqual(
          [answer.status, answer.headers['strict-transport-security']],
          [path === '/psu/eid' ? 200 : 400, undefined],
          `${mode} ${path}`,
        );
      }
    }
  });
});
