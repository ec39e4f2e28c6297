// Audit records of the flows audit-events.test.ts leaves out (issue 39): the decoupled (mobile e-ID)
// authorization's grant and token, with the polling request's address and correlation id; a signing
// basket's initiation, one record per payment naming its basket; the tokens a replayed code revokes.
// Whole records, through HTTP. On PGlite, and on PostgreSQL when TEST_DATABASE_URL is set.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { auditRecordsSince, lastAuditSeq } from '../helpers/audit.ts';
import { type InitAnswer, initDecoupled, postLink } from '../helpers/decoupled.ts';
import { backends, type Gateway, startGateway } from '../helpers/gateway.ts';
import { call } from '../helpers/http.ts';
import { ACCOUNTS, domestic } from '../helpers/payments.ts';

const DOMESTIC = 'handelsbanken-domestic-credit-transfer';
const PATH = `/psd2/se/v2/payments/private/single/${DOMESTIC}`;
const BASKET = '/psd2/se/v2/payments/private/signing-basket';
const TOLVAN = '191212121212';

for (const backend of backends()) {
  describe(`audit records of flows on ${backend} (sandbox)`, () => {
    let gateway: Gateway;
    let token: string;
    before(async () => {
      gateway = await startGateway({ backend, config: { auditSealIntervalMs: 0 } });
      token = await gateway.client.clientCredentialsToken();
    });
    after(() => gateway.close());

    async function payment(): Promise<string> {
      const answer = await gateway.client.initiate(token, { path: PATH, body: domestic() });
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
      return answer.body.paymentId;
    }

    test('decoupled: the grant and the token name the polling request', async () => {
      const app = gateway.sandboxApp.clientId;
      const scope = `PIS:${await payment()}`;
      const init = await initDecoupled(gateway, {
        client_id: app,
        scope,
        psu_client_ip: '192.0.2.10',
        bisa_same_device: true,
      });
      assert.equal(init.status, 200, JSON.stringify(init.body));
      const start = await lastAuditSeq(gateway);
      const polled = await postLink(gateway, (init.body as InitAnswer)._links.token.href, {
        headers: { 'x-request-id': 'poll-1' },
      });
      assert.equal(polled.status, 200, JSON.stringify(polled.body));
      assert.equal((polled.body as { result: string }).result, 'COMPLETE');
      const actor = {
        tppId: null,
        appId: app,
        certificate: null,
        psuId: TOLVAN,
        address: '127.0.0.1',
        correlationId: 'poll-1',
      };
      assert.deepEqual(await auditRecordsSince(gateway, start), [
        { event: 'authorization.granted', outcome: 'ok', resource: scope, ...actor, detail: null },
        { event: 'token.issued', outcome: 'ok', resource: scope, ...actor, detail: { kind: 'decoupled' } },
      ]);
    });

    test('signing basket: one payment.initiated for each payment, naming the basket', async () => {
      const giro = (type: 'BG' | 'PG', value: string, reference: string) => ({
        paymentProduct: 'sek-credit-transfer',
        tppPaymentReference: reference,
        debtorAccount: { value: ACCOUNTS.tolvan.bban!, accountType: 'BBAN' },
        creditorAccount: { value, accountType: type },
        creditor: { name: 'Elbolaget AB' },
        instructedAmount: { currency: 'SEK', amount: '250.00' },
        remittanceInformationUnstructured: 'OCR 4455667788',
      });
      const start = await lastAuditSeq(gateway);
      const answer = await call(gateway.app, 'POST', BASKET, {
        headers: gateway.client.tppHeaders(token, { 'TPP-Request-ID': 'basket-1' }),
        json: {
          payments: [
            { paymentProduct: DOMESTIC, tppPaymentReference: 'rent', ...domestic() },
            giro('BG', '505-0109', 'power'),
            giro('PG', '901234-5', 'water'),
          ],
        },
      });
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
      const { payments, signingBaskedId } = answer.body as {
        payments: { paymentId: string }[];
        signingBaskedId: string;
      };
      const products = [DOMESTIC, 'sek-credit-transfer', 'sek-credit-transfer'];
      const records = await auditRecordsSince(gateway, start);
      // One statement inserts them: their order among themselves is the database's.
      records.sort((a, b) => (a.resource! < b.resource! ? -1 : 1));
      assert.deepEqual(
        records,
        payments
          .map(({ paymentId }, index) => ({
            event: 'payment.initiated',
            outcome: 'ACTC',
            resource: paymentId,
            tppId: null,
            appId: gateway.sandboxApp.clientId,
            certificate: null,
            psuId: TOLVAN,
            address: '127.0.0.1',
            correlationId: 'basket-1',
            detail: { product: products[index], basketId: signingBaskedId },
          }))
          .sort((a, b) => (a.resource < b.resource ? -1 : 1)),
      );
    });

    /** A POST to the token endpoint with the form, under the correlation id `requestId`. */
    function tokenRequest(form: Record<string, string>, requestId: string) {
      return call(gateway.app, 'POST', '/oauth2/token/1.0', {
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-request-id': requestId },
        payload: new URLSearchParams({ client_id: gateway.sandboxApp.clientId, ...form }).toString(),
      });
    }

    const exchange = (scope: string, code: string, requestId: string) =>
      tokenRequest(
        { grant_type: 'authorization_code', scope, code, redirect_uri: gateway.client.redirectUri },
        requestId,
      );

    const replayed = [400, { error: 'invalid_grant', error_description: 'the code has already been used' }];

    test('a replayed code: the token it issued revoked, and the exchange refused', async () => {
      const scope = `PIS:${await payment()}`;
      const code = (await gateway.client.authorize(scope, 'st')).get('code')!;
      assert.equal((await exchange(scope, code, 'exchange-1')).status, 200);
      const start = await lastAuditSeq(gateway);
      const replay = await exchange(scope, code, 'replay-1');
      assert.deepEqual([replay.status, replay.body], replayed);
      const actor = {
        tppId: null,
        appId: gateway.sandboxApp.clientId,
        certificate: null,
        address: '127.0.0.1',
        correlationId: 'replay-1',
      };
      assert.deepEqual(await auditRecordsSince(gateway, start), [
        {
          event: 'token.revoked',
          outcome: 'ok',
          resource: scope,
          ...actor,
          psuId: TOLVAN,
          detail: { reason: 'code replayed', token: 'access' },
        },
        {
          event: 'token.refused',
          outcome: 'invalid_grant',
          resource: scope,
          ...actor,
          psuId: null,
          detail: { grantType: 'authorization_code', reason: 'the code has already been used' },
        },
      ]);
    });

    test('a replayed account-access code: its refresh token and what it issued revoked too', async () => {
      const created = await gateway.client.createConsent(await gateway.client.clientCredentialsToken('AIS'));
      const scope = `AIS:${created.body.consentId}`;
      const code = (await gateway.client.authorize(scope, 'st')).get('code')!;
      const tokens = await exchange(scope, code, 'exchange-2');
      assert.equal(tokens.status, 200, JSON.stringify(tokens.body));
      const refreshToken = (tokens.body as { refresh_token: string }).refresh_token;
      const refreshed = await tokenRequest(
        { grant_type: 'refresh_token', refresh_token: refreshToken },
        'refresh-1',
      );
      assert.equal(refreshed.status, 200, JSON.stringify(refreshed.body));
      const start = await lastAuditSeq(gateway);
      const replay = await exchange(scope, code, 'replay-2');
      assert.deepEqual([replay.status, replay.body], replayed);
      const revoked = (token: string) => ({
        event: 'token.revoked',
        outcome: 'ok',
        resource: scope,
        tppId: null,
        appId: gateway.sandboxApp.clientId,
        certificate: null,
        psuId: TOLVAN,
        address: '127.0.0.1',
        correlationId: 'replay-2',
        detail: { reason: 'code replayed', token },
      });
      assert.deepEqual(
        (await auditRecordsSince(gateway, start)).map((row) =>
          row.event === 'token.refused' ? row.event : row,
        ),
        [revoked('access'), revoked('refresh'), revoked('access'), 'token.refused'],
      );
      // Neither the refresh token nor the access token it issued works any more.
      const again = await tokenRequest(
        { grant_type: 'refresh_token', refresh_token: refreshToken },
        'refresh-2',
      );
      assert.deepEqual(
        [again.status, again.body],
        [400, { error: 'invalid_grant', error_description: 'the refresh token has been revoked' }],
      );
      const read = await gateway.client.accounts.list(
        (refreshed.body as { access_token: string }).access_token,
      );
      assert.equal(read.status, 401);
      assert.equal(
        (read.body as unknown as { tppMessages: { code: string }[] }).tppMessages[0]!.code,
        'TOKEN_INVALID',
      );
    });
  });
}
