// A start that fails on something outside the process says which setting and what to do, in one line
// without a stack trace, and exits 1 (a setting refused as read: 2); a port in use is found before the
// database opens. The database failures come from a real PostgreSQL when TEST_DATABASE_URL is set, and
// from stand-ins that speak PostgreSQL's wire protocol (v3) for those a trust-auth server cannot give.
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type Server, type Socket } from 'node:net';
import { test } from 'node:test';
import { TEST_DATABASE_URL } from '../helpers/gateway.ts';
import { refusedPort } from '../helpers/ports.ts';
import { freePort, spawnServe } from '../helpers/serve-process.ts';

/** A server on a loopback port; each connection handled by `onConnection`. */
async function standIn(onConnection: (socket: Socket) => void): Promise<{ server: Server; port: number }> {
  const server = createServer(onConnection);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return { server, port: (server.address() as { port: number }).port };
}

/** A PostgreSQL message: a type byte, its length, its payload. */
function message(type: string, payload: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeInt32BE(payload.length + 4);
  return Buffer.concat([Buffer.from(type), length, payload]);
}

/** An ErrorResponse with the fields a server sends (severity, SQLSTATE, message). */
function errorResponse(code: string, text: string): Buffer {
  const field = (key: string, value: string) => Buffer.from(`${key}${value}\0`);
  return message(
    'E',
    Buffer.concat([
      field('S', 'FATAL'),
      field('V', 'FATAL'),
      field('C', code),
      field('M', text),
      Buffer.from([0]),
    ]),
  );
}

/** Runs `serve` with the settings, expects it to fail; answers its exit code and stderr, checked for stacks. */
async function failedStart(env: Record<string, string>) {
  const gateway = spawnServe(env);
  const code = await gateway.exited();
  const stderr = gateway.stderr();
  assert.doesNotMatch(stderr, /^\s+at /m, 'no stack trace');
  assert.doesNotMatch(stderr, /\/src\/|node:internal/, 'no file paths');
  return { code, stderr: stderr.trim(), lines: gateway.lines() };
}

test('DATABASE_URL where nothing listens: named, with what to do', async () => {
  const port = await refusedPort();
  const { code, stderr } = await failedStart({
    DATABASE_URL: `postgres://bank:s3cret@127.0.0.1:${port}/bank`,
  });
  assert.equal(code, 1);
  assert.equal(
    stderr,
    `psd2-gateway: cannot start: DATABASE_URL: nothing accepts connections at 127.0.0.1:${port} (connection refused); start PostgreSQL there or correct the host and port`,
  );
});

test('a password PostgreSQL refuses: named without repeating the password', async () => {
  // The server asks for a cleartext password and refuses it, as PostgreSQL does (SQLSTATE 28P01).
  const { server, port } = await standIn((socket) => {
    let received = 0;
    socket.on('data', () => {
      received++;
      if (received === 1) socket.write(message('R', Buffer.from([0, 0, 0, 3])));
      else socket.end(errorResponse('28P01', 'password authentication failed for user "bank"'));
    });
    socket.on('error', () => {});
  });
  try {
    const { code, stderr } = await failedStart({
      DATABASE_URL: `postgres://bank:s3cret@127.0.0.1:${port}/bank`,
    });
    assert.equal(code, 1);
    assert.equal(
      stderr,
      `psd2-gateway: cannot start: DATABASE_URL: PostgreSQL at 127.0.0.1:${port} refused the password of user "bank"; correct the user or the password`,
    );
  } finally {
    server.close();
  }
});

test('a server that accepts but never answers: DB_CONNECT_TIMEOUT_MS named', async () => {
  const sockets: Socket[] = [];
  const { server, port } = await standIn((socket) => {
    sockets.push(socket);
    socket.on('error', () => {});
  });
  try {
    const { code, stderr } = await failedStart({
      DATABASE_URL: `postgres://bank@127.0.0.1:${port}/bank`,
      DB_CONNECT_TIMEOUT_MS: '300',
    });
    assert.equal(code, 1);
    assert.equal(
      stderr,
      `psd2-gateway: cannot start: DB_CONNECT_TIMEOUT_MS: 127.0.0.1:${port} (DATABASE_URL) did not answer within 300 ms; check that PostgreSQL runs there and that the network lets the connection through`,
    );
  } finally {
    for (const socket of sockets) socket.destroy();
    server.close();
  }
});

test('PostgreSQL: a role that does not exist, a database that does not exist', {
  skip: TEST_DATABASE_URL === undefined ? 'TEST_DATABASE_URL is not set' : false,
}, async () => {
  const url = new URL(TEST_DATABASE_URL ?? 'postgres://localhost');
  const server = `${url.hostname}:${url.port || '5432'}`;
  const role = new URL(url);
  role.username = 'no_such_role_x1';
  const refused = await failedStart({ DATABASE_URL: role.href });
  assert.equal(refused.code, 1);
  assert.equal(
    refused.stderr,
    `psd2-gateway: cannot start: DATABASE_URL: PostgreSQL at ${server} refused user "no_such_role_x1" (no such role, or pg_hba.conf does not let it in from here); create the role or correct the user`,
  );
  const database = new URL(url);
  database.pathname = '/no_such_database_x1';
  const missing = await failedStart({ DATABASE_URL: database.href });
  assert.equal(missing.code, 1);
  assert.equal(
    missing.stderr,
    `psd2-gateway: cannot start: DATABASE_URL: the database "no_such_database_x1" does not exist at ${server}; create it (createdb no_such_database_x1) or correct its name`,
  );
});

test('a port in use: named before the database opens', async () => {
  const { server, port } = await standIn((socket) => socket.destroy());
  try {
    const { code, stderr, lines } = await failedStart({ PORT: String(port) });
    assert.equal(code, 1);
    assert.equal(
      stderr,
      `psd2-gateway: cannot start: PORT: port ${port} on 127.0.0.1 is taken by another process; stop that process or choose another PORT`,
    );
    // The code loaded, then the port was found taken: no database opened, nothing seeded.
    assert.deepEqual(
      lines.map((line) => line.phase),
      ['modules'],
    );
  } finally {
    server.close();
  }
});

test('HOST that is no address of this machine', async () => {
  const { code, stderr } = await failedStart({ HOST: '192.0.2.1', PORT: String(await freePort()) });
  assert.equal(code, 1);
  assert.equal(
    stderr,
    'psd2-gateway: cannot start: HOST: 192.0.2.1 is no address of this machine; correct HOST (0.0.0.0 listens on all)',
  );
});

test('WORKERS with the embedded database: refused as a setting', async () => {
  const { code, stderr } = await failedStart({ WORKERS: '2' });
  assert.equal(code, 2);
  assert.equal(
    stderr,
    'psd2-gateway: bad setting WORKERS: several workers need PostgreSQL: set DATABASE_URL, or WORKERS=1 with the embedded database',
  );
});
