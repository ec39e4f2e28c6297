// A TCP proxy between a gateway and PostgreSQL that the test controls: it passes bytes, refuses (an
// outage: every connection cut, new ones refused) or drops every byte (a blackhole: nothing closed).
import { connect, createServer, type Server, type Socket } from 'node:net';

export type ProxyMode = 'pass' | 'refuse' | 'blackhole';

export interface DatabaseProxy {
  /** The database URL through the proxy (the target's, on 127.0.0.1 and the proxy's port). */
  readonly url: string;
  set(mode: ProxyMode): void;
  close(): Promise<void>;
}

export async function startDatabaseProxy(target: URL): Promise<DatabaseProxy> {
  let mode: ProxyMode = 'pass';
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    if (mode === 'refuse') return void client.destroy();
    const upstream = connect(Number(target.port || 5432), target.hostname);
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
  return {
    url: url.href,
    set(next: ProxyMode) {
      mode = next;
      if (next === 'refuse') for (const socket of sockets) socket.destroy();
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
