// The gateway's own sealer: every AUDIT_SEAL_INTERVAL_MS a turn (store/audit/seal.ts), and once a day
// the retention (AUDIT_RETENTION_DAYS). Every process of every instance runs one; the row lock in
// sealTurn lets one seal at a time and the others find nothing left to do.
import { every } from '../../domain/periodic.ts';
import type { Db } from '../database.ts';
import { sealTurn } from './seal.ts';
import { applyRetention, auditKey } from './trail.ts';

export interface SealerOptions {
  readonly key: string | undefined;
  readonly intervalMs: number;
  readonly retentionDays: number | undefined;
  readonly onError: (error: unknown) => void;
}

const DAY_MS = 86_400_000;

/** How long the stop waits for a turn under way (a database gone silent must not hold a shutdown). */
const STOP_WAIT_MS = 1_000;

/**
 * Starts sealing; answers the stop, which waits for a turn under way at most STOP_WAIT_MS: a turn is one
 * transaction, and one cut off rolls back whole (the next process's turn seals what it would have).
 */
export function startSealer(db: Db, options: SealerOptions): () => Promise<void> {
  let key: Buffer | undefined;
  let lastRetention = 0;
  return every(
    async (stopped) => {
      key ??= await auditKey(db, options.key);
      // A second's records (thousands under load) are sealed a SEAL_LIMIT at a time, each turn its own
      // transaction, with the event loop free between them: a request waits for one turn, not for all.
      while (!stopped() && (await sealTurn(db, key)).more)
        await new Promise((resolve) => setImmediate(resolve));
      if (options.retentionDays !== undefined && Date.now() - lastRetention > DAY_MS) {
        lastRetention = Date.now();
        await applyRetention(db, options.retentionDays, new Date());
      }
    },
    { intervalMs: options.intervalMs, stopWaitMs: STOP_WAIT_MS, onError: options.onError },
  );
}
