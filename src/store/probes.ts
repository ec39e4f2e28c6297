// How the gateway's own stores are asked whether they answer (health, readiness, the start's log): the
// database, which every call needs (required), and Redis, without which each process counts its own
// rate limits (not required).
import { sql } from 'drizzle-orm';
import type { Redis } from 'ioredis';
import type { SystemProbe } from '../domain/bank-systems.ts';
import type { StoreDb } from './database.ts';

export function storeProbes(
  db: StoreDb,
  where: { readonly database: string; readonly redis?: Redis | undefined },
): SystemProbe[] {
  const probes: SystemProbe[] = [
    {
      system: 'database',
      where: where.database,
      required: true,
      probe: async () => {
        await db.execute(sql`SELECT 1`);
      },
    },
  ];
  const { redis } = where;
  if (redis !== undefined)
    probes.push({
      system: 'redis',
      where: `${redis.options.host}:${redis.options.port}`,
      required: false,
      probe: async () => {
        await redis.ping();
      },
    });
  return probes;
}
