// A loopback port for the tests of a peer that is not there.
import { connect } from 'node:net';

/**
 * A loopback port that refuses connections: the first of a few below 1024 that nothing listens on here.
 * Not a port that was free a moment ago: a closed port can go at once to another test's server (test
 * files run in parallel), which then answers in the absent peer's place; a listen on port 0 never hands
 * out these. None of them is on the Fetch standard's list of bad ports, so fetch connects and is refused
 * (ECONNREFUSED) rather than refusing the port itself.
 */
export async function refusedPort(): Promise<number> {
  for (const port of [2, 3, 4, 5, 6, 8]) {
    const refused = await new Promise<boolean>((resolve) => {
      const socket = connect({ host: '127.0.0.1', port });
      socket.once('connect', () => {
        socket.destroy();
        resolve(false);
      });
      socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code === 'ECONNREFUSED'));
    });
    if (refused) return port;
  }
  throw new Error('no loopback port below 1024 refuses connections here');
}
