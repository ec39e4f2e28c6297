// A connection reset while a new connection's session is checked (is this host a primary?) must be a 503,
// not an unhandled 'error' that ends the process. PostgreSQL 14+ reports in_hot_standby itself; an older
// server or a pooler in front of it does not, and then the check is a query on the new connection,
// before pg-pool listens for its errors. The server here speaks just enough of PostgreSQL's protocol to
// finish a session's start, reporting in_hot_standby to the discovery's first probes (one per host:
// "a primary") and not to the pool's connection after them, whose check query it resets (RST).
import assert from 'node:assert/strict';
import { createServer, type Server, type Socket } from 'node:net';
import { after, before, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { openPostgres } from '../../src/store/database/postgres.ts';
import { isDatabaseUnavailable } from '../../src/store/database/unavailable.ts';
import type { Store } from '../../src/store/database.ts';

/** A backend message: type byte, length (itself included), body. */
function message(type: string, body: Buffer = Buffer.alloc(0)): Buffer {
  const length = Buffer.alloc(4);
  length.writeInt32BE(body.length + 4);
  return Buffer.concat([Buffer.from(type), length, body]);
}

function parameterStatus(name: string, value: string): Buffer {
  return message('S', Buffer.from(`${name}\0${value}\0`));
}

let server: Server;
let port: number;
const queries: string[] = [];
/** The discovery's first probes, one per host listed: told at start that the server is a primary. */
const PROBES = 2;
let connections = 0;

before(async () => {
  server = createServer((socket: Socket) => {
    socket.on('error', () => {});
    connections += 1;
    const reportsState = connections <= PROBES;
    let started = false;
    socket.on('data', (chunk: Buffer) => {
      if (!started) {
        // The startup message (no type byte): the session starts, trust authentication, and the
        // parameters a server reports (a probe's: those of a primary; the pool's: none of them).
        started = true;
        const ok = Buffer.alloc(4);
        const state = reportsState
          ? [
              parameterStatus('in_hot_standby', 'off'),
              parameterStatus('default_transaction_read_only', 'off'),
            ]
          : [];
        socket.write(
          Buffer.concat([
            message('R', ok),
            parameterStatus('server_version', '13.0'),
            parameterStatus('client_encoding', 'UTF8'),
            ...state,
            message('Z', Buffer.from('I')),
          ]),
        );
        return;
      }
      queries.push(chunk.subarray(0, 1).toString());
      socket.resetAndDestroy();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as { port: number }).port;
});

after(() => new Promise<void>((resolve) => server.close(() => resolve())));

test('a reset while a new connection is checked: the statement is refused as unavailable, the process lives', async () => {
  let store: Store | undefined;
  try {
    store = await openPostgres({
      databaseUrl: `postgres://postgres@127.0.0.1:${port},127.0.0.1:${port}/bank?target_session_attrs=read-write`,
      timeouts: { connectMs: 1_000, statementMs: 1_000 },
    });
    for (let attempt = 0; attempt < 3; attempt++) {
      const failure = await store.db.execute(sql`SELECT 1`).then(
        () => undefined,
        (error: unknown) => error,
      );
      assert.ok(failure instanceof Error, 'the statement fails: no host could be checked');
      assert.ok(isDatabaseUnavailable(failure), `a 503, not a 500: ${failure.message}`);
    }
    assert.ok(connections > PROBES, 'the pool connected after the discovery');
    assert.ok(queries.length > 0, "the pool's check was sent as a query, and reset");
  } finally {
    await store?.close();
  }
});
