// Each family of audit records after real HTTP calls through the app (issue 39): onboarding, tokens,
// authorizations, PSU logins, consents, payments; with the actor, resource and outcome each names.
// On PGlite, and on PostgreSQL when TEST_DATABASE_URL is set.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { TppClient } from '@psd2-gateway/client';
import { TEST_PSU_PASSWORD } from '../../src/sandbox/seed.ts';
import { type AuditRecordRow, auditRecordsSince, lastAuditSeq } from '../helpers/audit.ts';
import { backends, type Gateway, startGateway } from '../helpers/gateway.ts';
import { call } from '../helpers/http.ts';
import { domestic, otherBank } from '../helpers/payments.ts';
import { codeParameters, openAuthorize, post, redirectQuery } from '../helpers/psu-pages.ts';

const DOMESTIC = 'handelsbanken-domestic-credit-transfer';
const PATH = `/psd2/se/v2/payments/private/single/${DOMESTIC}`;
const TOLVAN = '191212121212';
const AGDA = '198112289874';
const ELLA_EXPIRED = '197307072525';

type Row = Omit<AuditRecordRow, 'seq'>;

/** Some fields of each record, in the order named. */
function fields<K extends keyof Row>(rows: readonly Row[], ...keys: K[]): Row[K][][] {
  return rows.map((row) => keys.map((key) => row[key]));
}

const headers = (requestId: string) => ({ 'tpp-request-id': requestId, 'tpp-transaction-id': 't' });

for (const backend of backends()) {
  describe(`audit records on ${backend} (sandbox)`, () => {
    let gateway: Gateway;
    before(async () => {
      gateway = await startGateway({ backend, config: { auditSealIntervalMs: 0 } });
    });
    after(() => gateway.close());

    test('onboarding: TPP enrolled, app registered and subscribed, with the TPP as actor', async () => {
      const start = await lastAuditSeq(gateway);
      const enrolled = await call(gateway.app, 'POST', '/psd2/v1/third-parties', {
        headers: headers('enrol-1'),
      });
      assert.equal(enrolled.status, 201, JSON.stringify(enrolled.body));
      const tppId = (enrolled.body as { clientId: string }).clientId;
      const token = await call(gateway.app, 'POST', '/oauth2/token/1.0', {
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({
          grant_type: 'client_credentials',
          client_id: tppId,
          scope: 'PSD2-ADMIN',
        }).toString(),
      });
      assert.equal(token.status, 200, JSON.stringify(token.body));
      const subscribed = await call(gateway.app, 'POST', '/psd2/v1/subscriptions', {
        headers: {
          ...headers('subscribe-1'),
          'x-gateway-client-id': tppId,
          authorization: `Bearer ${(token.body as { access_token: string }).access_token}`,
        },
        json: {
          app: { name: 'Budget', description: '', oauthRedirectURI: 'https://budget.example/cb' },
          product: { name: 'accounts' },
        },
      });
      assert.equal(subscribed.status, 200, JSON.stringify(subscribed.body));
      const clientId = (subscribed.body as { clientId: string; subscription: { subscriptionId: string } })
        .clientId;
      const subscriptionId = (subscribed.body as { subscription: { subscriptionId: string } }).subscription
        .subscriptionId;
      assert.deepEqual(await auditRecordsSince(gateway, start), [
        {
          event: 'tpp.enrolled',
          outcome: 'ok',
          resource: tppId,
          tppId,
          appId: null,
          certificate: null,
          psuId: null,
          address: '127.0.0.1',
          correlationId: 'enrol-1',
          detail: { name: 'Sandbox TPP' },
        },
        {
          event: 'token.issued',
          outcome: 'ok',
          resource: 'PSD2-ADMIN',
          tppId: null,
          appId: tppId,
          certificate: null,
          psuId: null,
          address: '127.0.0.1',
          correlationId: (await auditRecordsSince(gateway, start))[1]!.correlationId,
          detail: { kind: 'client_credentials' },
        },
        {
          event: 'app.registered',
          outcome: 'ok',
          resource: clientId,
          tppId,
          appId: clientId,
          certificate: null,
          psuId: null,
          address: '127.0.0.1',
          correlationId: 'subscribe-1',
          detail: { name: 'Budget', redirectUri: 'https://budget.example/cb', notificationHosts: [] },
        },
        {
          event: 'app.subscribed',
          outcome: 'ok',
          resource: clientId,
          tppId,
          appId: clientId,
          certificate: null,
          psuId: null,
          address: '127.0.0.1',
          correlationId: 'subscribe-1',
          detail: { product: 'accounts', subscriptionId },
        },
      ]);
    });

    test('tokens: a refused one is recorded with its error, never the token', async () => {
      const start = await lastAuditSeq(gateway);
      const stranger = new TppClient(gateway.url, 'no-such-app', 'https://x.example/cb');
      assert.equal((await stranger.clientCredentials('PIS')).status, 401);
      const [refused] = await auditRecordsSince(gateway, start);
      assert.deepEqual(
        { ...refused, correlationId: undefined },
        {
          event: 'token.refused',
          outcome: 'invalid_client',
          resource: 'PIS',
          tppId: null,
          appId: 'no-such-app',
          certificate: null,
          psuId: null,
          address: '127.0.0.1',
          correlationId: undefined,
          detail: { grantType: 'client_credentials', reason: refused!.detail!.reason },
        },
      );
    });

    test('payment: initiated, authorization granted, token issued, booked; a denied authorization', async () => {
      const app = gateway.sandboxApp.clientId;
      const token = await gateway.client.clientCredentialsToken();
      const start = await lastAuditSeq(gateway);
      const initiated = await gateway.client.initiate(token, { path: PATH, body: domestic() });
      const paymentId = initiated.body.paymentId;
      assert.equal((await gateway.client.authorizeAndExecute(DOMESTIC, paymentId)).status, 200);
      const scope = `PIS:${paymentId}`;
      assert.deepEqual(
        fields(await auditRecordsSince(gateway, start), 'event', 'outcome', 'resource', 'appId', 'psuId'),
        [
          ['payment.initiated', 'ACTC', paymentId, app, TOLVAN],
          ['authorization.granted', 'ok', scope, app, TOLVAN],
          ['token.issued', 'ok', scope, app, TOLVAN],
          ['payment.booked', 'ACCC', paymentId, app, TOLVAN],
        ],
      );
      // The sandbox user named is not the debtor account's holder: denied.
      const other = (await gateway.client.initiate(token, { path: PATH, body: domestic() })).body.paymentId;
      const next = await lastAuditSeq(gateway);
      const denied = await call(
        gateway.app,
        'GET',
        `/oauth2/authorize/1.0?${new URLSearchParams(codeParameters(gateway.sandboxApp, `PIS:${other}`, 'st'))}`,
        { headers: { 'x-sandbox-user': 'SANDBOX-INDIVIDUAL-SE-2', 'x-request-id': 'deny-1' } },
      );
      assert.equal(denied.status, 302);
      assert.deepEqual(
        fields(
          await auditRecordsSince(gateway, next),
          'event',
          'outcome',
          'resource',
          'psuId',
          'correlationId',
        ),
        [['authorization.denied', 'denied', `PIS:${other}`, AGDA, 'deny-1']],
      );
    });

    test('consents: created, authorized, ended by the TPP; expired when first refused as such', async () => {
      const app = gateway.sandboxApp.clientId;
      const ais = await gateway.client.clientCredentialsToken('AIS');
      const start = await lastAuditSeq(gateway);
      const created = await gateway.client.createConsent(ais);
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const consentId = created.body.consentId;
      const tokens = await gateway.client.authorizeScope(`AIS:${consentId}`);
      assert.equal((await gateway.client.consents.delete(consentId, tokens.access_token)).status, 204);
      assert.deepEqual(
        fields(await auditRecordsSince(gateway, start), 'event', 'outcome', 'resource', 'appId', 'psuId'),
        [
          ['consent.created', 'received', consentId, app, null],
          ['consent.authorized', 'valid', consentId, app, TOLVAN],
          ['authorization.granted', 'ok', `AIS:${consentId}`, app, TOLVAN],
          ['token.issued', 'ok', `AIS:${consentId}`, app, TOLVAN],
          ['consent.revoked', 'terminatedByTpp', consentId, app, TOLVAN],
        ],
      );
      // Ella's consents expire as she approves them: the first read refused records the expiry, once.
      const ella = await gateway.client.createConsent(ais, { headers: { 'PSU-ID': ELLA_EXPIRED } });
      const ellaTokens = await gateway.client.authorizeScope(`AIS:${ella.body.consentId}`);
      const next = await lastAuditSeq(gateway);
      for (let read = 0; read < 2; read += 1)
        assert.equal((await gateway.client.accounts.list(ellaTokens.access_token)).status, 401);
      assert.deepEqual(
        fields(await auditRecordsSince(gateway, next), 'event', 'outcome', 'resource', 'appId', 'psuId'),
        [['consent.expired', 'expired', ella.body.consentId, app, ELLA_EXPIRED]],
      );
    });
  });

  describe(`audit records on ${backend} (live login pages)`, () => {
    let gateway: Gateway;
    before(async () => {
      gateway = await startGateway({ backend, config: { mode: 'live', auditSealIntervalMs: 0 } });
    });
    after(() => gateway.close());

    test('PSU login failed and succeeded, authorization denied by the PSU', async () => {
      const token = await gateway.client.clientCredentialsToken();
      const initiated = await gateway.client.initiate(token, {
        path: '/psd2/se/v2/payments/private/single/other-bank-domestic-credit-transfer',
        body: otherBank({ debtorAccount: { value: '6789555555550', accountType: 'BBAN' } }),
      });
      const scope = `PIS:${initiated.body.paymentId}`;
      const start = await lastAuditSeq(gateway);
      const login = await openAuthorize(gateway, codeParameters(gateway.sandboxApp, scope, 'live'));
      const from = { remoteAddress: '203.0.113.7' };
      await post(gateway, '/psu/login', login, { psu_id: AGDA, password: 'wrong' }, from);
      const consent = await post(
        gateway,
        '/psu/login',
        login,
        { psu_id: AGDA, password: TEST_PSU_PASSWORD },
        from,
      );
      const denied = await post(gateway, '/psu/consent', consent, { decision: 'deny' }, from);
      assert.equal(redirectQuery(denied).error, 'access_denied');
      assert.deepEqual(
        fields(await auditRecordsSince(gateway, start), 'event', 'outcome', 'resource', 'psuId', 'address'),
        [
          ['psu.login', 'failed', null, AGDA, '203.0.113.7'],
          ['psu.login', 'succeeded', null, AGDA, '203.0.113.7'],
          ['authorization.denied', 'denied', scope, AGDA, '203.0.113.7'],
        ],
      );
    });
  });
}
