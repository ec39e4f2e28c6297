// Stopping: idle keep-alive connections are closed at once, a request in flight still gets its real
// answer (with Connection: close) before the close completes, one that arrives while closing gets a
// 503 in our shape, and the process exits within
// SHUTDOWN_TIMEOUT_MS even when a request never finishes arriving.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { connect, type Socket } from 'node:net';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { startGateway } from '../helpers/gateway.ts';
import { spawnServe } from '../helpers/serve-process.ts';

/** A raw connection to host:port that collects what the server sends and notes when it closes. */
async function rawConnection(url: string) {
  const { hostname, port } = new URL(url);
  const socket: Socket = connect(Number(port), hostname);
  await once(socket, 'connect');
  let received = '';
  socket.on('data', (chunk: Buffer) => {
    received += chunk.toString('utf8');
  });
  const closed = once(socket, 'close').then(() => true);
  return { socket, received: () => received, closed };
}

test('close: idle connections end at once, a request in flight gets its answer with Connection: close', async () => {
  const gateway = await startGateway();
  try {
    const idle = await rawConnection(gateway.url);
    idle.socket.write('GET /livez HTTP/1.1\r\nHost: localhost\r\n\r\n');
    for (let i = 0; i < 50 && !idle.received().includes('"status":"ok"'); i++) await sleep(10);
    assert.match(idle.received(), /^HTTP\/1\.1 200 OK\r\n/);
    assert.match(idle.received(), /\r\nConnection: keep-alive\r\n/i);

    const busy = await rawConnection(gateway.url);
    const body = `grant_type=client_credentials&scope=PIS&client_id=${gateway.sandboxApp.clientId}`;
    busy.socket.write(
      'POST /oauth2/token/1.0 HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/x-www-form-urlencoded\r\n' +
        `Content-Length: ${body.length}\r\n\r\n${body.slice(0, 10)}`,
    );
    await sleep(50);
    let closedAll = false;
    const closing = gateway.app.close().then(() => {
      closedAll = true;
    });
    assert.equal(await idle.closed, true, 'the idle connection is closed');
    assert.equal(closedAll, false, 'the close waits for the request in flight');
    busy.socket.write(body.slice(10));
    await closing;
    await busy.closed;
    const answer = busy.received();
    assert.match(answer, /^HTTP\/1\.1 200 OK\r\n/);
    assert.match(answer, /\r\nconnection: close\r\n/i);
    const json = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4));
    assert.deepEqual(json, { access_token: json.access_token, expires_in: 86400, token_type: 'Bearer' });
    assert.match(json.access_token, /^[A-Za-z0-9_-]{20,}$/);
  } finally {
    await gateway.close();
  }
});

test('close: a request that arrives while closing is a 503 in the API shape, with Connection: close', async () => {
  const gateway = await startGateway();
  try {
    // A request in flight keeps the close going; another one's headers are half sent before it.
    const busy = await rawConnection(gateway.url);
    busy.socket.write(
      'POST /oauth2/token/1.0 HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/x-www-form-urlencoded\r\n' +
        'Content-Length: 3\r\n\r\na',
    );
    const late = await rawConnection(gateway.url);
    late.socket.write('GET /psd2/v1/accounts HTTP/1.1\r\nHost: localhost\r\n');
    await sleep(50);
    const closing = gateway.app.close();
    await sleep(20);
    late.socket.write('\r\n');
    await late.closed;
    busy.socket.write('bc');
    await closing;
    await busy.closed;
    assert.match(
      busy.received(),
      /\r\nconnection: close\r\n/i,
      'the request in flight is answered, then closed',
    );
    const answer = late.received();
    assert.match(answer, /^HTTP\/1\.1 503 Service Unavailable\r\n/);
    assert.match(answer, /\r\nconnection: close\r\n/i);
    assert.match(answer, /\r\nretry-after: 1\r\n/i);
    const text = 'The service is restarting; try again';
    assert.deepEqual(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)), {
      httpCode: '503',
      httpMessage: 'Service Unavailable',
      moreInformation: text,
      tppMessages: [{ category: 'ERROR', code: 'SERVICE_UNAVAILABLE', text }],
    });
  } finally {
    await gateway.close();
  }
});

// Bounded: without the fix the close waited for the connection's keep-alive timeout (72 s).
test('close: a connection answered before the close whose body ends during it is closed as it goes idle', {
  timeout: 20_000,
}, async () => {
  const gateway = await startGateway();
  try {
    // Answered at once (no Content-Type: 415) while two of its three body bytes are still to come.
    const early = await rawConnection(gateway.url);
    early.socket.write('POST /oauth2/token/1.0 HTTP/1.1\r\nHost: localhost\r\nContent-Length: 3\r\n\r\na');
    for (let i = 0; i < 100 && !early.received().includes('\r\n\r\n'); i++) await sleep(10);
    assert.match(early.received(), /^HTTP\/1\.1 415 Unsupported Media Type\r\n/);
    assert.match(early.received(), /\r\nconnection: keep-alive\r\n/i);
    const closing = gateway.app.close();
    await sleep(20);
    early.socket.write('bc');
    assert.equal(await early.closed, true, 'the connection is closed once its request has ended');
    await closing;
  } finally {
    await gateway.close();
  }
});

test('SIGTERM: the process exits within SHUTDOWN_TIMEOUT_MS although a request never finishes', async () => {
  const gateway = spawnServe({ SHUTDOWN_TIMEOUT_MS: '300' });
  try {
    const [ready] = await gateway.ready();
    const stuck = await rawConnection(String(ready?.url));
    stuck.socket.write(
      'POST /oauth2/token/1.0 HTTP/1.1\r\nHost: localhost\r\nContent-Length: 100\r\n\r\nabc',
    );
    await sleep(50);
    gateway.child.kill('SIGTERM');
    assert.equal(await gateway.exited(), 1);
    assert.equal(
      gateway.stderr().trim().split('\n').at(-1),
      'psd2-gateway: requests still in flight after SHUTDOWN_TIMEOUT_MS (300 ms): exiting',
    );
    stuck.socket.destroy();
  } finally {
    await gateway.kill();
  }
});
