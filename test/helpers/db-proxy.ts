// A TCP proxy between a gateway and PostgreSQL that the test controls: it passes bytes, refuses (an
// outage: every connection cut, new ones refused), drops every byte (a blackhole: nothing closed) or
// resets (as a network or a proxy that drops connections: every connection ends with an RST, never a
// clean close).
import { connect, createServer, type Server, type Socket } from 'node:net';

export type ProxyMode = 'pass' | 'refuse' | 'blackhole' | 'reset';

export interface DatabaseProxy {
  /** The database URL through the proxy (the target's, on 127.0.0.1 and the proxy's port). */
  readonly url: string;
  set(mode: ProxyMode): void;
  /** Resets every open connection now (RST to the gateway and to the database); the mode stays. */
  resetAll(): void;
  close(): Promise<void>;
}

/**
 * Ends a socket with an RST: the peer reads ECONNRESET, not the end of the stream that destroy() sends.
 * A socket not yet connected (its upstream still connecting) cannot be reset: it is destroyed.
 */
function reset(socket: Socket): void {
  if (socket.destroyed) return;
  if (socket.readyState === 'open' || socket.readyState === 'readOnly' || socket.readyState === 'writeOnly')
    socket.resetAndDestroy();
  else socket.destroy();
}

export async function startDatabaseProxy(target: URL): Promise<DatabaseProxy> {
  let mode: ProxyMode = 'pass';
  const sockets = new Set<Socket>();
  // Each side's peer, so that a reset ends both sides with an RST (not one RST and one clean close).
  const peers = new Map<Socket, Socket>();
  const resetBoth = (socket: Socket) => {
    const peer = peers.get(socket);
    reset(socket);
    if (peer !== undefined) reset(peer);
  };
  const server: Server = createServer((client) => {
    if (mode === 'refuse') return void client.destroy();
    client.on('error', () => {});
    if (mode === 'reset') {
      // Accepted, then reset on the client's first bytes (its startup message): as a proxy that takes
      // the connection and finds its upstream gone, the client reads the RST while it waits for the
      // server's first answer.
      client.once('data', () => reset(client));
      sockets.add(client);
      client.on('close', () => sockets.delete(client));
      return;
    }
    const upstream = connect(Number(target.port || 5432), target.hostname);
    peers.set(client, upstream);
    peers.set(upstream, client);
    for (const [from, to] of [
      [client, upstream],
      [upstream, client],
    ] as const) {
      sockets.add(from);
      from.on('data', (chunk) => {
        if (mode === 'pass') to.write(chunk);
      });
      from.on('close', () => {
        sockets.delete(from);
        peers.delete(from);
        // A side that ended ends the other (a reset already reset both: destroy() does nothing more).
        to.destroy();
      });
      from.on('error', () => {});
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  const url = new URL(target.href);
  url.hostname = '127.0.0.1';
  url.port = String(port);
  const resetAll = () => {
    for (const socket of [...sockets]) resetBoth(socket);
  };
  return {
    url: url.href,
    set(next: ProxyMode) {
      mode = next;
      if (next === 'refuse') for (const socket of sockets) socket.destroy();
      if (next === 'reset') resetAll();
    },
    resetAll,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
