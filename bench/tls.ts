// Live-mode initiation over mutual TLS, with keep-alive and with a new connection (a full handshake)
// per request, against a raw node:https server with the same TLS settings in the same run.
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import autocannon from 'autocannon';
import pino from 'pino';
import { buildApp } from '../src/app.ts';
import { createCa, issueQwac, issueServerCertificate } from '../src/certificates/issue.ts';
import { configWith } from '../src/config.ts';
import { seedTestCustomers } from '../src/sandbox/seed.ts';
import { scaMethods } from '../src/services/shared/sca-methods.ts';
import { openStore } from '../src/store/database/open.ts';
import { domestic } from '../test/helpers/payments.ts';
import { tlsRequest } from '../test/helpers/tls.ts';
import { NO_RATE_LIMITS } from './common.ts';

const PATH = '/psd2/se/v2/payments/private/single/handelsbanken-domestic-credit-transfer';

export interface TlsRow {
  readonly target: string;
  readonly keepAlive: number;
  readonly newConnection: number;
}

async function rate(
  url: string,
  tlsOptions: object,
  headers: Record<string, string>,
  body: string,
  seconds: number,
  close: boolean,
) {
  const result = await autocannon({
    url,
    method: 'POST',
    connections: 16,
    duration: seconds,
    tlsOptions,
    headers: { ...headers, 'content-type': 'application/json', ...(close ? { connection: 'close' } : {}) },
    body,
    requests: [
      {
        setupRequest: (request) => ({
          ...request,
          headers: { ...request.headers, 'TPP-Request-ID': randomUUID() },
        }),
      },
    ],
  });
  const failures = result.non2xx + result.errors + result.timeouts;
  if (failures > result.requests.total * 0.01)
    throw new Error(`${failures} failed requests of ${result.requests.total}`);
  return result.requests.average;
}

export async function measureTls(databaseUrl: string | undefined, seconds: number): Promise<TlsRow[]> {
  const ca = await createCa();
  const server = await issueServerCertificate(ca);
  const qwac = await issueQwac(ca, {
    organizationIdentifier: 'PSDSE-FINA-44059',
    organizationName: 'Bench AB',
    roles: ['PSP_PI'],
  });
  const serverTls = { key: server.keyPem, cert: server.certificatePem, ca: ca.certificatePem };
  const clientTls = { cert: qwac.certificatePem, key: qwac.keyPem, ca: ca.certificatePem };
  const body = JSON.stringify(domestic());
  const rows: TlsRow[] = [];

  const answer = JSON.stringify({
    paymentId: randomUUID(),
    scaMethods: scaMethods('https://localhost', 'SE'),
    transactionStatus: 'ACTC',
  });
  const raw = createServer(
    { ...serverTls, requestCert: true, rejectUnauthorized: false },
    (request, response) => {
      request.resume();
      request.on('end', () =>
        response.writeHead(200, { 'content-type': 'application/json; charset=utf-8' }).end(answer),
      );
    },
  );
  await new Promise<void>((resolve) => raw.listen(0, '127.0.0.1', resolve));
  const rawUrl = `https://localhost:${(raw.address() as AddressInfo).port}${PATH}`;
  rows.push({
    target: 'raw node:https',
    keepAlive: await rate(rawUrl, clientTls, {}, body, seconds, false),
    newConnection: await rate(rawUrl, clientTls, {}, body, seconds, true),
  });
  await new Promise((resolve) => raw.close(resolve));

  const schemaName =
    databaseUrl === undefined ? undefined : `bench_${randomUUID().replaceAll('-', '').slice(0, 10)}`;
  const store = await openStore({ databaseUrl, schemaName, poolSize: 20 });
  await seedTestCustomers(store.db);
  const app = await buildApp({
    config: configWith({
      mode: 'live',
      port: 0,
      logLevel: 'silent',
      schedulerIntervalMs: 0,
      rateLimits: NO_RATE_LIMITS,
    }),
    store,
    logger: pino({ level: 'silent' }),
    tls: serverTls,
  });
  const address = (await app.listen({ port: 0, host: '127.0.0.1' })).replace('127.0.0.1', 'localhost');
  try {
    const call = (method: string, path: string, headers: Record<string, string>, payload?: string) =>
      tlsRequest(address + path, {
        method,
        ca: ca.certificatePem,
        client: qwac,
        headers,
        ...(payload === undefined ? {} : { body: payload }),
      });
    const ids = { 'TPP-Request-ID': randomUUID(), 'TPP-Transaction-ID': 'bench' };
    const tppId = ((await call('POST', '/psd2/v1/third-parties', ids)).body as { clientId: string }).clientId;
    const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();
    const formHeaders = { 'content-type': 'application/x-www-form-urlencoded' };
    const admin = (
      (
        await call(
          'POST',
          '/oauth2/token/1.0',
          formHeaders,
          form({ grant_type: 'client_credentials', scope: 'PSD2-ADMIN', client_id: tppId }),
        )
      ).body as { access_token: string }
    ).access_token;
    const subscription = {
      app: { name: 'Bench', description: '', oauthRedirectURI: 'https://bench.example/cb' },
      product: { name: 'payments-se-private' },
    };
    const registered = await call(
      'POST',
      '/psd2/v1/subscriptions',
      {
        ...ids,
        'TPP-Request-ID': randomUUID(),
        'X-Gateway-Client-Id': tppId,
        Authorization: `Bearer ${admin}`,
        'content-type': 'application/json',
      },
      JSON.stringify(subscription),
    );
    const clientId = (registered.body as { clientId: string }).clientId;
    const pis = (
      (
        await call(
          'POST',
          '/oauth2/token/1.0',
          formHeaders,
          form({ grant_type: 'client_credentials', scope: 'PIS', client_id: clientId }),
        )
      ).body as { access_token: string }
    ).access_token;
    const headers = {
      'X-Gateway-Client-Id': clientId,
      'TPP-Transaction-ID': 'bench',
      Authorization: `Bearer ${pis}`,
      'PSU-IP-Address': '192.0.2.1',
    };
    const url = address + PATH;
    rows.push({
      target: `gateway live on ${databaseUrl === undefined ? 'PGlite' : 'PostgreSQL'}`,
      keepAlive: await rate(url, clientTls, headers, body, seconds, false),
      newConnection: await rate(url, clientTls, headers, body, seconds, true),
    });
  } finally {
    await app.close();
    if (schemaName !== undefined)
      await store.db.execute((await import('drizzle-orm')).sql.raw(`DROP SCHEMA ${schemaName} CASCADE`));
    await store.close();
  }
  return rows;
}
