// The Redis that shares the rate limits' counters between processes (REDIS_URL). Opened at start: a
// Redis that does not answer then stops the start (main.ts names REDIS_URL). Later, a Redis that goes
// away costs no request: a command fails at once while it is away (no offline queue) or after
// REDIS_COMMAND_TIMEOUT_MS when it went silent, and the rate limits let the request through
// (api/shared/rate-limits.ts); the client reconnects by itself.
import { Redis } from 'ioredis';

/** How long opening the connection may take at start, ms. */
const REDIS_CONNECT_TIMEOUT_MS = 5_000;
/**
 * How long one counter update may take before the request goes on without it, ms: Redis answers in
 * well under a millisecond, so this is what a Redis gone silent costs each limited request (twice on
 * the authorization routes) until TCP keep-alive notices the dead connection.
 */
const REDIS_COMMAND_TIMEOUT_MS = 250;

export interface RedisEvents {
  /** The connection was lost or failed (once per outage). */
  readonly onDown?: (error: Error) => void;
  /** The connection is back after an outage. */
  readonly onUp?: () => void;
}

/** Why Redis could not be opened at start: what the client said, with the address it tried. */
export class RedisOpenError extends Error {
  constructor(
    readonly where: string,
    readonly reason: string,
  ) {
    super(`Redis at ${where} does not answer: ${reason}`);
    this.name = 'RedisOpenError';
  }
}

/** Connects to the Redis of `url` (redis: or rediss:) and waits until it answers. */
export async function openRedis(url: string, events: RedisEvents = {}): Promise<Redis> {
  const parsed = new URL(url);
  const where = `${parsed.hostname}:${parsed.port || '6379'}`;
  const redis = new Redis(url, {
    lazyConnect: true,
    connectTimeout: REDIS_CONNECT_TIMEOUT_MS,
    commandTimeout: REDIS_COMMAND_TIMEOUT_MS,
    // A command while Redis is away fails at once instead of waiting for it in a queue.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    // A Redis gone silent (a network that drops everything) is found by TCP keep-alive, then reconnected.
    keepAlive: 10_000,
    // Reconnect every second at most, for ever: Redis comes back by itself.
    retryStrategy: (times) => Math.min(times * 100, 1_000),
  });
  let up = false;
  let lastError: Error | undefined;
  const down = (error: Error) => {
    lastError = error;
    if (up) {
      up = false;
      events.onDown?.(error);
    }
  };
  redis.on('error', down);
  // A server that stops closes the connection without an error; the client then reconnects (a close
  // of ours at shutdown does not).
  redis.on('reconnecting', () => {
    if (up) down(new Error(`the connection to ${where} closed`));
  });
  redis.on('ready', () => {
    if (!up && lastError !== undefined) events.onUp?.();
    up = true;
  });
  try {
    await redis.connect();
    // A server that takes the connection but is no Redis (or refuses us) fails here.
    await redis.ping();
  } catch (error) {
    redis.disconnect();
    const reason = (lastError ?? (error as Error)).message || String(error);
    throw new RedisOpenError(where, reason);
  }
  up = true;
  lastError = undefined;
  return redis;
}
