// Who moved a payment, as its audit record names them (issue 39): the TPP's call over mutual TLS (its
// TPP, app, certificate, address and TPP-Request-ID), the PSU on the permission dashboard (the PSU and
// the browser's address, no TPP; a consent withdrawn there too), the execution that the PSU's
// authorization allows, the gateway's scheduler, and an operator's UPDATE with SQL. Whole records, on PGlite and on PostgreSQL when
// TEST_DATABASE_URL is set.
import assert from 'node:assert/strict';
import { createHash, X509Certificate } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { createCa, type Issued, issueQwac, issueServerCertificate } from '../../src/certificates/issue.ts';
import { addDays } from '../../src/domain/dates.ts';
import { bookDuePayments } from '../../src/services/payments/due-payments.ts';
import { type AuditRecordRow, auditRecords } from '../helpers/audit.ts';
import { csrfOf, loggedIn, open, submit } from '../helpers/dashboard.ts';
import {
  type Backend,
  backends,
  bankDate,
  type Gateway,
  manualClock,
  serviceContext,
  startGateway,
} from '../helpers/gateway.ts';
import { call } from '../helpers/http.ts';
import { domestic } from '../helpers/payments.ts';
import { tlsRequest } from '../helpers/tls.ts';

const DOMESTIC = 'handelsbanken-domestic-credit-transfer';
const PATH = `/psd2/se/v2/payments/private/single/${DOMESTIC}`;
const TOLVAN = '191212121212';
const ORG = 'PSDSE-FINA-44059';
const TPP_ID = 'SE-FINA-44059';
const DAY = 86_400_000;

type Row = Omit<AuditRecordRow, 'seq'>;

/** The payment's records after its initiation's, in order, without their seq. */
async function movesOf(gateway: Gateway, paymentId: string): Promise<Row[]> {
  const rows = await auditRecords(gateway, { resource: paymentId });
  assert.equal(rows[0]?.event, 'payment.initiated');
  return rows.slice(1).map(({ seq: _, ...row }) => row);
}

/** A record of the move of the payment of Tolvan's by `app`, with what the test names. */
function moved(
  paymentId: string,
  app: string,
  record: Pick<Row, 'event' | 'outcome' | 'detail'> & Partial<Row>,
): Row {
  return {
    resource: paymentId,
    tppId: null,
    appId: app,
    certificate: null,
    psuId: TOLVAN,
    address: null,
    correlationId: null,
    ...record,
  };
}

for (const backend of backends()) {
  describe(`who moved a payment, live over mutual TLS (${backend})`, () => liveTpp(backend));
  describe(`who moved a payment, sandbox (${backend})`, () => sandbox(backend));
}

function liveTpp(backend: Backend): void {
  let ca: Issued;
  let qwac: Issued;
  let gateway: Gateway;
  let clientId: string;

  const over = (method: string, path: string, headers: Record<string, string>, body?: string) =>
    tlsRequest(gateway.url + path, {
      method,
      ca: ca.certificatePem,
      client: qwac,
      headers: { 'TPP-Request-ID': `r-${Math.random()}`, 'TPP-Transaction-ID': 't-1', ...headers },
      ...(body === undefined ? {} : { body }),
    });
  const form = { 'Content-Type': 'application/x-www-form-urlencoded' };
  const json = { 'Content-Type': 'application/json' };
  async function token(scope: string, client: string): Promise<string> {
    const answer = await over(
      'POST',
      '/oauth2/token/1.0',
      form,
      new URLSearchParams({ grant_type: 'client_credentials', scope, client_id: client }).toString(),
    );
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    return (answer.body as { access_token: string }).access_token;
  }

  before(async () => {
    ca = await createCa();
    const server = await issueServerCertificate(ca);
    qwac = await issueQwac(ca, {
      organizationIdentifier: ORG,
      organizationName: 'Budget Buddy AB',
      roles: ['PSP_PI'],
    });
    gateway = await startGateway({
      backend,
      config: { mode: 'live', auditSealIntervalMs: 0 },
      tls: { key: server.keyPem, cert: server.certificatePem, ca: ca.certificatePem },
    });
    assert.equal((await over('POST', '/psd2/v1/third-parties', {})).status, 201);
    const admin = await token('PSD2-ADMIN', TPP_ID);
    const registered = await over(
      'POST',
      '/psd2/v1/subscriptions',
      { ...json, 'X-Gateway-Client-Id': TPP_ID, Authorization: `Bearer ${admin}` },
      JSON.stringify({
        app: { name: 'Movers', description: '', oauthRedirectURI: 'https://movers.example/cb' },
        product: { name: 'payments-se-private' },
      }),
    );
    assert.equal(registered.status, 200, JSON.stringify(registered.body));
    clientId = (registered.body as { clientId: string }).clientId;
  });
  after(() => gateway?.close());

  test("a TPP's cancellation names the TPP, its app, its certificate, its address and TPP-Request-ID", async () => {
    const pis = await token('PIS', clientId);
    const headers = {
      'X-Gateway-Client-Id': clientId,
      Authorization: `Bearer ${pis}`,
      'PSU-IP-Address': '192.0.2.10',
    };
    const initiated = await over('POST', PATH, { ...headers, ...json }, JSON.stringify(domestic()));
    assert.equal(initiated.status, 200, JSON.stringify(initiated.body));
    const { paymentId } = initiated.body as { paymentId: string };
    const cancelled = await over('DELETE', `/psd2/se/v2/payments/${DOMESTIC}/${paymentId}`, {
      ...headers,
      'TPP-Request-ID': 'cancel-1',
    });
    assert.deepEqual(cancelled, { status: 200, body: { paymentId, transactionStatus: 'CANC' } });
    const certificate = createHash('sha256')
      .update(new X509Certificate(qwac.certificatePem).raw)
      .digest('hex');
    assert.deepEqual(await movesOf(gateway, paymentId), [
      moved(paymentId, clientId, {
        event: 'payment.cancelled',
        outcome: 'CANC',
        tppId: TPP_ID,
        certificate,
        address: '127.0.0.1',
        correlationId: 'cancel-1',
        detail: { from: 'ACTC', by: 'tpp' },
      }),
    ]);
  });
}

function sandbox(backend: Backend): void {
  const time = manualClock();
  let gateway: Gateway;
  let app: string;

  before(async () => {
    gateway = await startGateway({ backend, clock: time.clock, config: { auditSealIntervalMs: 0 } });
    app = gateway.sandboxApp.clientId;
  });
  after(() => gateway.close());

  /** A payment of Tolvan's, dated `daysAhead` later; executed under TPP-Request-ID `requestId`. */
  async function executed(requestId: string, daysAhead = 0): Promise<string> {
    const { client } = gateway;
    const body =
      daysAhead === 0
        ? domestic()
        : { ...domestic(), requestedExecutionDate: addDays(bankDate(time.clock()), daysAhead) };
    const initiated = await client.initiate(await client.clientCredentialsToken(), { path: PATH, body });
    assert.equal(initiated.status, 200, JSON.stringify(initiated.body));
    const { paymentId } = initiated.body;
    const psu = (await client.authorizeScope(`PIS:${paymentId}`)).access_token;
    const answer = await call(gateway.app, 'PUT', `/psd2/se/v2/payments/${DOMESTIC}/${paymentId}`, {
      headers: client.tppHeaders(psu, { 'TPP-Request-ID': requestId }),
      remoteAddress: '198.51.100.4',
    });
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    return paymentId;
  }

  /** The record of the execution (`executed`) under `requestId`, moving the payment to `outcome`. */
  const execution = (paymentId: string, requestId: string, event: string, outcome: string) =>
    moved(paymentId, app, {
      event,
      outcome,
      address: '198.51.100.4',
      correlationId: requestId,
      detail: { from: 'ACTC', by: 'tpp' },
    });

  /** Tolvan posts the dashboard's form at `path` from 203.0.113.9, under X-Request-ID `requestId`. */
  async function onDashboard(path: string, requestId: string): Promise<void> {
    const browser = await loggedIn(gateway, TOLVAN);
    const csrf = csrfOf(await open(gateway, browser));
    const answer = await submit(
      gateway,
      browser,
      path,
      { csrf },
      { remoteAddress: '203.0.113.9', headers: { 'x-request-id': requestId } },
    );
    assert.equal(answer.status, 302, String(answer.body));
  }

  test("the execution the PSU's authorization allows names the PSU, the TPP's address and request", async () => {
    const paymentId = await executed('execute-1');
    assert.deepEqual(await movesOf(gateway, paymentId), [
      execution(paymentId, 'execute-1', 'payment.booked', 'ACCC'),
    ]);
  });

  test('a cancellation on the dashboard names the PSU and the browser, no TPP', async () => {
    const paymentId = await executed('execute-2', 3);
    await onDashboard(`/payments/${paymentId}/cancel`, 'dashboard-1');
    assert.deepEqual(await movesOf(gateway, paymentId), [
      execution(paymentId, 'execute-2', 'payment.status_moved', 'ACCP'),
      moved(paymentId, app, {
        event: 'payment.cancelled',
        outcome: 'CANC',
        address: '203.0.113.9',
        correlationId: 'dashboard-1',
        detail: { from: 'ACCP', by: 'psu' },
      }),
    ]);
  });

  test('a consent withdrawn on the dashboard names the PSU and the browser as well', async () => {
    const { client } = gateway;
    const created = await client.createConsent(await client.clientCredentialsToken('AIS'));
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const { consentId } = created.body;
    await client.authorizeScope(`AIS:${consentId}`);
    await onDashboard(`/consents/${consentId}/withdraw`, 'dashboard-2');
    const { seq: _, ...revoked } = (await auditRecords(gateway, { resource: consentId })).at(-1)!;
    assert.deepEqual(revoked, {
      event: 'consent.revoked',
      outcome: 'revokedByPsu',
      resource: consentId,
      tppId: null,
      appId: app,
      certificate: null,
      psuId: TOLVAN,
      address: '203.0.113.9',
      correlationId: 'dashboard-2',
      detail: { by: 'psu' },
    });
  });

  test("a future-dated payment booked on its date is the gateway's own move", async () => {
    const paymentId = await executed('execute-3', 1);
    time.advance(DAY);
    const booked = await bookDuePayments(serviceContext(gateway, { clock: time.clock }));
    assert.ok(booked >= 1, `${booked} payments booked`);
    const [, onItsDate] = await movesOf(gateway, paymentId);
    assert.deepEqual(
      onItsDate,
      moved(paymentId, app, {
        event: 'payment.booked',
        outcome: 'ACCC',
        detail: { from: 'ACCP', by: 'system' },
      }),
    );
  });

  test("an operator's UPDATE is recorded with the database role and the connection's address", async () => {
    const paymentId = await executed('execute-4', 3);
    await gateway.store.db.execute(sql`UPDATE payments SET status = 'CANC' WHERE payment_id = ${paymentId}`);
    const [, cancelled] = await movesOf(gateway, paymentId);
    assert.deepEqual(
      cancelled,
      moved(paymentId, app, {
        event: 'payment.cancelled',
        outcome: 'CANC',
        // The test's connection to PostgreSQL; PGlite, in this process, answers the loopback address too.
        address: '127.0.0.1',
        detail: { from: 'ACCP', by: 'database', user: 'postgres' },
      }),
    );
  });
}
