// npm run bench: the payment flow under load over loopback, against a raw node:http server that
// answers the same JSON in the same run. Reports req/s of initiation and status, complete flows/s,
// and each as a ratio to the raw baseline; on PGlite, and on PostgreSQL when BENCH_DATABASE_URL
// (or TEST_DATABASE_URL) is set. These machines are shared and noisy: read the ratios.
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { TppClient } from '../src/client/tpp-client.ts';
import { scaMethods } from '../src/services/shared/sca-methods.ts';
import { domestic } from '../test/helpers/payments.ts';
import { measureAis, printAis } from './ais.ts';
import { CONNECTIONS, gateway, listenRaw, load, SECONDS, type Target } from './common.ts';
import { measureStart, printStart } from './start.ts';
import { measureTls } from './tls.ts';

const FLOW_WORKERS = Number(process.env.BENCH_FLOW_WORKERS ?? 16);
const DATABASE_URL = process.env.BENCH_DATABASE_URL || process.env.TEST_DATABASE_URL || undefined;
const PATH = '/psd2/se/v2/payments/private/single/handelsbanken-domestic-credit-transfer';
/** Parts to leave out, comma-separated: start, payments, ais, tls (for quicker runs while working on one part). */
const SKIP = new Set((process.env.BENCH_SKIP ?? '').split(',').filter((part) => part !== ''));

/** The baseline: node:http answering the gateway's JSON without any work. */
async function rawServer(): Promise<Target> {
  const paymentId = randomUUID();
  // The same JSON as the gateway's answer: the scaMethods of a Swedish payment.
  const initiation = JSON.stringify({
    paymentId,
    scaMethods: scaMethods('http://127.0.0.1:3000', 'SE'),
    transactionStatus: 'ACTC',
  });
  const status = JSON.stringify({ paymentId, transactionStatus: 'ACCC' });
  const token = JSON.stringify({ access_token: 'x'.repeat(43), expires_in: 900, token_type: 'Bearer' });
  const sessionLink = (action: string) => ({
    href: `http://127.0.0.1/decoupled/eid/${action}/2.0?sessionId=${'s'.repeat(43)}`,
    hints: { allow: ['POST'] },
  });
  const decoupledInit = JSON.stringify({
    auto_start_token: randomUUID(),
    sleep_time: 2000,
    _links: { token: sessionLink('token'), cancel: sessionLink('cancel') },
  });
  const decoupledToken = JSON.stringify({
    result: 'COMPLETE',
    access_token: 'x'.repeat(43),
    token_type: 'Bearer',
    expires_in: 900,
  });
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      if (request.url?.startsWith('/oauth2/authorize')) {
        response.writeHead(302, { location: `http://127.0.0.1/cb?code=${'c'.repeat(43)}&state=s` }).end();
        return;
      }
      const url = request.url ?? '';
      if (url.endsWith('/signing-basket')) {
        const items = (
          JSON.parse(Buffer.concat(chunks).toString()) as { payments: { tppPaymentReference: string }[] }
        ).payments;
        const answer = {
          payments: items.map((item) => ({
            paymentId: randomUUID(),
            tppPaymentReference: item.tppPaymentReference,
          })),
          signingBaskedId: randomUUID(),
        };
        response
          .writeHead(200, { 'content-type': 'application/json; charset=utf-8' })
          .end(JSON.stringify(answer));
        return;
      }
      const body = url.startsWith('/oauth2/token')
        ? token
        : url.startsWith('/decoupled/eid/initAuthorization')
          ? decoupledInit
          : url.startsWith('/decoupled/eid/token')
            ? decoupledToken
            : request.method === 'POST'
              ? initiation
              : status;
      response.writeHead(200, { 'content-type': 'application/json; charset=utf-8' }).end(body);
    });
  });
  return listenRaw(server);
}

async function initiationRate(target: Target, token: string): Promise<number> {
  const client = new TppClient(target.url, target.clientId, target.redirectUri);
  const body = JSON.stringify(domestic());
  return load({
    title: 'initiation',
    url: target.url + PATH,
    method: 'POST',
    headers: { ...client.tppHeaders(token), 'content-type': 'application/json' },
    body,
    // Every request a new TPP-Request-ID: a new payment each time, no idempotent replays.
    requests: [
      {
        setupRequest: (request) => ({
          ...request,
          headers: { ...request.headers, 'TPP-Request-ID': randomUUID() },
        }),
      },
    ],
  });
}

async function statusRate(target: Target, token: string, paymentId: string): Promise<number> {
  const client = new TppClient(target.url, target.clientId, target.redirectUri);
  return load({
    title: 'status',
    url: `${target.url}/psd2/v1/payments/handelsbanken-domestic-credit-transfer/${paymentId}/status`,
    headers: client.tppHeaders(token, { Country: 'SE' }),
  });
}

/** Complete flows per second: FLOW_WORKERS loops of initiate, authorize, token, execute, status. */
async function flowRate(target: Target, token: string): Promise<number> {
  const client = new TppClient(target.url, target.clientId, target.redirectUri);
  const product = 'handelsbanken-domestic-credit-transfer';
  const deadline = Date.now() + SECONDS * 1000;
  let flows = 0;
  const worker = async () => {
    while (Date.now() < deadline) {
      const initiated = await client.initiate(token, { path: PATH, body: domestic() });
      if (initiated.status !== 200) throw new Error(`initiate ${initiated.status}`);
      const paymentId = initiated.body.paymentId;
      const executed = await client.authorizeAndExecute(product, paymentId);
      if (executed.status !== 200) throw new Error(`execute ${executed.status}`);
      const status = await client.status(product, paymentId, token, 'SE');
      if (status.status !== 200) throw new Error(`status ${status.status}`);
      flows += 1;
    }
  };
  const started = Date.now();
  await Promise.all(Array.from({ length: FLOW_WORKERS }, worker));
  return (flows * 1000) / (Date.now() - started);
}

/** Basket initiation with `size` payments, each request under a new TPP-Request-ID. */
async function basketRate(target: Target, token: string, size: number): Promise<number> {
  const client = new TppClient(target.url, target.clientId, target.redirectUri);
  const payments = Array.from({ length: size }, (_, index) => ({
    paymentProduct: 'handelsbanken-domestic-credit-transfer',
    tppPaymentReference: `ref-${index}`,
    ...domestic(),
  }));
  return load({
    title: `basket of ${size}`,
    url: `${target.url}/psd2/se/v2/payments/private/signing-basket`,
    method: 'POST',
    headers: { ...client.tppHeaders(token), 'content-type': 'application/json' },
    body: JSON.stringify({ payments }),
    requests: [
      {
        setupRequest: (request) => ({
          ...request,
          headers: { ...request.headers, 'TPP-Request-ID': randomUUID() },
        }),
      },
    ],
  });
}

/** Loops of FLOW_WORKERS for SECONDS: how many times per second `step` completes. */
async function loopRate(step: () => Promise<void>): Promise<number> {
  const deadline = Date.now() + SECONDS * 1000;
  let done = 0;
  const started = Date.now();
  await Promise.all(
    Array.from({ length: FLOW_WORKERS }, async () => {
      while (Date.now() < deadline) {
        await step();
        done += 1;
      }
    }),
  );
  return (done * 1000) / (Date.now() - started);
}

/** Authorize (302 with a code) and the code exchange, for one payment awaiting authorization. */
function codeExchangeRate(target: Target, paymentId: string): Promise<number> {
  const client = new TppClient(target.url, target.clientId, target.redirectUri);
  const scope = `PIS:${paymentId}`;
  return loopRate(async () => {
    const code = (await client.authorize(scope, 's')).get('code')!;
    const answer = await client.exchangeCode(scope, code);
    if (answer.status !== 200) throw new Error(`code exchange ${answer.status}`);
  });
}

/** The sandbox decoupled flow: initAuthorization and the first token poll (COMPLETE). */
function decoupledRate(target: Target, paymentId: string): Promise<number> {
  const client = new TppClient(target.url, target.clientId, target.redirectUri);
  const body = {
    client_id: target.clientId,
    scope: `PIS:${paymentId}`,
    psu_client_ip: '192.0.2.1',
    bisa_same_device: true,
  };
  return loopRate(async () => {
    const init = await client.request<{ _links: { token: { href: string } } }>(
      'POST',
      '/decoupled/eid/initAuthorization/2.0',
      { json: body },
    );
    if (init.status !== 200) throw new Error(`decoupled init ${init.status}`);
    const tokenUrl = new URL(init.body._links.token.href);
    const polled = await client.request<{ result: string }>(
      'POST',
      `/decoupled/eid/token/2.0${tokenUrl.search}`,
      { json: {} },
    );
    if (polled.status !== 200 || polled.body.result !== 'COMPLETE')
      throw new Error(`decoupled poll ${polled.status}`);
  });
}

interface Row {
  readonly target: string;
  readonly initiation: number;
  readonly status: number;
  readonly statusWaiting: number;
  readonly flows: number;
  readonly codeExchange: number;
  readonly decoupled: number;
  readonly basket3: number;
  readonly basket20: number;
}

async function measure(name: string, target: Target): Promise<Row> {
  const client = new TppClient(target.url, target.clientId, target.redirectUri);
  const token = target.clientId === 'raw' ? 'raw' : await client.clientCredentialsToken();
  const first = await client.initiate(token, { path: PATH, body: domestic() });
  const paymentId = first.body.paymentId;
  if (target.clientId !== 'raw')
    await client.authorizeAndExecute('handelsbanken-domestic-credit-transfer', paymentId);
  await flowRate(target, token); // warm-up: JIT, connection pools, caches
  const initiation = await initiationRate(target, token);
  const status = await statusRate(target, token, paymentId);
  // A payment awaiting authorization: its status may change, so every read asks the database.
  const waiting = (await client.initiate(token, { path: PATH, body: domestic() })).body.paymentId;
  const statusWaiting = await statusRate(target, token, waiting);
  const flows = await flowRate(target, token);
  const codeExchange = await codeExchangeRate(target, waiting);
  const decoupled = await decoupledRate(target, waiting);
  const basket3 = await basketRate(target, token, 3);
  const basket20 = await basketRate(target, token, 20);
  return {
    target: name,
    initiation,
    status,
    statusWaiting,
    flows,
    codeExchange,
    decoupled,
    basket3,
    basket20,
  };
}

async function main(): Promise<void> {
  console.log(
    `psd2-gateway bench: ${SECONDS} s per run, ${CONNECTIONS} connections, ${FLOW_WORKERS} flow workers, node ${process.version}`,
  );
  if (!SKIP.has('start')) printStart(await measureStart());
  else console.log('\n(start and memory skipped: BENCH_SKIP)');
  if (!SKIP.has('payments')) await measurePayments();
  else console.log('\n(payment flow skipped: BENCH_SKIP)');
  if (SKIP.has('ais')) console.log('\n(account information skipped: BENCH_SKIP)');
  else printAis(await measureAis(DATABASE_URL));
  if (SKIP.has('tls')) {
    console.log('\n(mutual TLS skipped: BENCH_SKIP)');
    return;
  }
  await measureAndPrintTls();
}

async function measurePayments(): Promise<void> {
  const rows: Row[] = [];
  const raw = await rawServer();
  try {
    rows.push(await measure('raw node:http', raw));
  } finally {
    await raw.close();
  }
  const backends: [string, string | undefined][] = [['gateway on PGlite', undefined]];
  if (DATABASE_URL !== undefined) backends.push(['gateway on PostgreSQL', DATABASE_URL]);
  else console.log('(PostgreSQL skipped: set BENCH_DATABASE_URL or TEST_DATABASE_URL)');
  for (const [name, url] of backends) {
    const target = await gateway(url);
    try {
      rows.push(await measure(name, target));
    } finally {
      await target.close();
    }
  }
  const base = rows[0]!;
  const ratio = (value: number, of: number) => `${(value / of).toFixed(2)}x`;
  console.log(
    '\n| target | initiation req/s | status (executed) req/s | status (awaiting authorization) req/s | flows/s | code exchanges/s | decoupled/s | basket of 3 req/s | basket of 20 req/s |',
  );
  console.log('|---|---|---|---|---|---|---|---|---|');
  const columns = (row: Row) => [
    row.initiation,
    row.status,
    row.statusWaiting,
    row.flows,
    row.codeExchange,
    row.decoupled,
    row.basket3,
    row.basket20,
  ];
  for (const row of rows) {
    const cells = columns(row).map((value, index) => {
      const baseline = columns(base)[index]!;
      return row === base ? value.toFixed(0) : `${value.toFixed(0)} (${ratio(value, baseline)})`;
    });
    console.log(`| ${row.target} | ${cells.join(' | ')} |`);
  }
  console.log('\nA flow is five requests: initiate, authorize (302), code exchange, execute, status. A code');
  console.log('exchange is authorize (302) and the token call; decoupled is initAuthorization and the first');
  console.log(
    'token poll (sandbox: COMPLETE); baskets are initiations of 3 and 20 payments. The raw baseline',
  );
  console.log('answers the same requests with canned JSON; ratios are to it, in the same run. A payment');
  console.log('in a final status (executed) never changes and is kept in memory; the status of one awaiting');
  console.log('authorization is read from the database every time.');
}

async function measureAndPrintTls(): Promise<void> {
  const ratio = (value: number, of: number) => `${(value / of).toFixed(2)}x`;
  const tlsRows = await measureTls(DATABASE_URL, SECONDS);
  const tlsBase = tlsRows[0]!;
  console.log('\nLive-mode initiation over mutual TLS (16 connections):\n');
  console.log('| target | keep-alive req/s | new connection per request req/s |');
  console.log('|---|---|---|');
  for (const row of tlsRows) {
    const cell = (value: number, baseline: number) =>
      row === tlsBase ? value.toFixed(0) : `${value.toFixed(0)} (${ratio(value, baseline)})`;
    console.log(
      `| ${row.target} | ${cell(row.keepAlive, tlsBase.keepAlive)} | ${cell(row.newConnection, tlsBase.newConnection)} |`,
    );
  }
}

await main();
