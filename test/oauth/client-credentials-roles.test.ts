// Live client-credentials tokens over real TLS: a token of scope PIS, AIS or CBPII only for a
// certificate that carries the role (PSP_PI, PSP_AI, PSP_IC; PSP_PI gives CBPII too), else
// invalid_scope; a CBPII token confirms funds. The sandbox issues every scope to any app.
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { createCa, type Issued, issueQwac, issueServerCertificate } from '../../src/certificates/issue.ts';
import type { PspRole } from '../../src/domain/psp-roles.ts';
import { type Gateway, startGateway } from '../helpers/gateway.ts';
import { call, statusAndBody } from '../helpers/http.ts';
import { ACCOUNTS } from '../helpers/payments.ts';
import { type ClientCertificate, tlsRequest } from '../helpers/tls.ts';

const ORG = 'PSDSE-FINA-44059';
const TPP_ID = 'SE-FINA-44059';

describe('live: the certificate carries the role of the scope', () => {
  let ca: Issued;
  let gateway: Gateway;
  let clientId: string;
  const certs = {} as Record<'pi' | 'ai' | 'ic', Issued>;

  function over(
    client: ClientCertificate,
    method: string,
    path: string,
    headers: Record<string, string>,
    body?: string,
  ) {
    return tlsRequest(gateway.url + path, {
      method,
      ca: ca.certificatePem,
      client,
      headers: { 'TPP-Request-ID': `r-${Math.random()}`, 'TPP-Transaction-ID': 't-1', ...headers },
      ...(body === undefined ? {} : { body }),
    });
  }

  const form = { 'Content-Type': 'application/x-www-form-urlencoded' };
  const json = { 'Content-Type': 'application/json' };
  const tokenRequest = (client: ClientCertificate, parameters: Record<string, string>) =>
    over(client, 'POST', '/oauth2/token/1.0', form, new URLSearchParams(parameters).toString());
  const base64 = (issued: Issued) =>
    Buffer.from(new X509Certificate(issued.certificatePem).raw).toString('base64');

  before(async () => {
    ca = await createCa();
    const server = await issueServerCertificate(ca);
    const qwac = (roles: PspRole[]) =>
      issueQwac(ca, { organizationIdentifier: ORG, organizationName: 'Budget Buddy AB', roles });
    certs.pi = await qwac(['PSP_PI']);
    certs.ai = await qwac(['PSP_AI']);
    certs.ic = await qwac(['PSP_IC']);
    gateway = await startGateway({
      config: { mode: 'live' },
      tls: { key: server.keyPem, cert: server.certificatePem, ca: ca.certificatePem },
    });
    // One TPP with three certificates, one role each; an app subscribed to payments and funds.
    assert.equal((await over(certs.pi, 'POST', '/psd2/v1/third-parties', {})).status, 201);
    for (const cert of [certs.ai, certs.ic]) {
      const added = await over(
        cert,
        'PUT',
        '/psd2/v1/third-parties',
        json,
        JSON.stringify({ clientCertificate: base64(cert) }),
      );
      assert.deepEqual(added, { status: 200, body: { clientId: TPP_ID } });
    }
    const admin = await tokenRequest(certs.pi, {
      grant_type: 'client_credentials',
      scope: 'PSD2-ADMIN',
      client_id: TPP_ID,
    });
    const adminToken = (admin.body as { access_token: string }).access_token;
    const subscribe = (body: unknown) =>
      over(
        certs.pi,
        'POST',
        '/psd2/v1/subscriptions',
        { ...json, 'X-Gateway-Client-Id': TPP_ID, Authorization: `Bearer ${adminToken}` },
        JSON.stringify(body),
      );
    const registered = await subscribe({
      app: { name: 'Roles', description: '', oauthRedirectURI: 'https://roles.example/cb' },
      product: { name: 'payments-se-private' },
    });
    assert.equal(registered.status, 200, JSON.stringify(registered.body));
    clientId = (registered.body as { clientId: string }).clientId;
    const funds = await subscribe({ clientId, product: { name: 'funds-confirmations' } });
    assert.equal(funds.status, 200, JSON.stringify(funds.body));
  });
  after(() => gateway?.close());

  const refused = (description: string) => ({
    status: 400,
    body: { error: 'invalid_scope', error_description: description },
  });

  test('each scope needs its role: PSP_PI gives PIS and CBPII, PSP_AI gives AIS, PSP_IC gives CBPII', async () => {
    const needs = {
      PIS: 'scope PIS needs the PSP_PI role in the certificate',
      AIS: 'scope AIS needs the PSP_AI role in the certificate',
      CBPII: 'scope CBPII needs the PSP_PI or PSP_IC role in the certificate',
    };
    const cases: ['pi' | 'ai' | 'ic', keyof typeof needs, boolean][] = [
      ['pi', 'PIS', true],
      ['pi', 'AIS', false],
      ['pi', 'CBPII', true],
      ['ai', 'PIS', false],
      ['ai', 'AIS', true],
      ['ai', 'CBPII', false],
      ['ic', 'PIS', false],
      ['ic', 'AIS', false],
      ['ic', 'CBPII', true],
    ];
    for (const [cert, scope, allowed] of cases) {
      const answer = await tokenRequest(certs[cert], {
        grant_type: 'client_credentials',
        scope,
        client_id: clientId,
      });
      assert.deepEqual(answer, allowed ? granted(answer) : refused(needs[scope]), `${cert} ${scope}`);
    }
  });

  test('a CBPII token of a PSP_IC certificate confirms funds; a PIS token is refused to it', async () => {
    const cbpii = await tokenRequest(certs.ic, {
      grant_type: 'client_credentials',
      scope: 'CBPII',
      client_id: clientId,
    });
    const token = (cbpii.body as { access_token: string }).access_token;
    const confirm = () =>
      over(
        certs.ic,
        'POST',
        '/psd2/v1/funds-confirmations',
        { ...json, 'X-Gateway-Client-Id': clientId, Authorization: `Bearer ${token}` },
        JSON.stringify({
          account: { iban: ACCOUNTS.agda.iban },
          instructedAmount: { currency: 'SEK', amount: '1.00' },
        }),
      );
    assert.deepEqual(await confirm(), { status: 200, body: { fundsAvailable: true } });
    assert.deepEqual(
      await tokenRequest(certs.ic, { grant_type: 'client_credentials', scope: 'PIS', client_id: clientId }),
      refused('scope PIS needs the PSP_PI role in the certificate'),
    );
  });
});

describe('sandbox: every client-credentials scope for any app', () => {
  let gateway: Gateway;
  before(async () => {
    gateway = await startGateway();
  });
  after(() => gateway.close());

  test('PIS, AIS and CBPII are issued; CBPII confirms funds; PIS does too', async () => {
    const token = (scope: string) =>
      call(gateway.app, 'POST', '/oauth2/token/1.0', {
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({
          grant_type: 'client_credentials',
          scope,
          client_id: gateway.sandboxApp.clientId,
        }).toString(),
      });
    for (const scope of ['PIS', 'AIS', 'CBPII']) {
      const answer = statusAndBody(await token(scope));
      assert.deepEqual(answer, granted(answer), scope);
    }
    for (const scope of ['CBPII', 'PIS']) {
      const access = (statusAndBody(await token(scope)).body as { access_token: string }).access_token;
      const confirmed = await call(gateway.app, 'POST', '/psd2/v1/funds-confirmations', {
        headers: gateway.client.tppHeaders(access),
        json: {
          account: { iban: ACCOUNTS.agda.iban },
          instructedAmount: { currency: 'SEK', amount: '1.00' },
        },
      });
      assert.deepEqual(statusAndBody(confirmed), { status: 200, body: { fundsAvailable: true } }, scope);
    }
    const ais = (statusAndBody(await token('AIS')).body as { access_token: string }).access_token;
    const refusedFunds = await call(gateway.app, 'POST', '/psd2/v1/funds-confirmations', {
      headers: gateway.client.tppHeaders(ais),
      json: { account: { iban: ACCOUNTS.agda.iban }, instructedAmount: { currency: 'SEK', amount: '1.00' } },
    });
    assert.deepEqual(statusAndBody(refusedFunds), {
      status: 401,
      body: {
        httpCode: '401',
        httpMessage: 'Unauthorized',
        moreInformation: 'This call needs a client-credentials token with scope CBPII or PIS',
        tppMessages: [
          {
            category: 'ERROR',
            code: 'TOKEN_INVALID',
            text: 'This call needs a client-credentials token with scope CBPII or PIS',
          },
        ],
      },
    });
  });
});

function granted(answer: { status: number; body: unknown }) {
  const body = answer.body as { access_token: string };
  return { status: 200, body: { access_token: body.access_token, expires_in: 86400, token_type: 'Bearer' } };
}
