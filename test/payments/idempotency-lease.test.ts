// How long an Idempotency-Key's claim holds without an answer (services/shared/idempotency.ts): always
// longer than the slowest request the settings allow, so that a retry never takes the key of a request
// still at work (the core banking system's three attempts, each up to its time-out, and the statements).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import { leaseMs } from '../../src/services/shared/idempotency.ts';

test('the lease: two minutes by default; longer than three slow attempts at the core banking system', () => {
  assert.equal(leaseMs(loadConfig({}, false)), 120_000);
  const slowBank = loadConfig(
    {
      CORE_BANKING_URL: 'http://127.0.0.1:9',
      CORE_BANKING_TIMEOUT_MS: '120000',
      DB_STATEMENT_TIMEOUT_MS: '20000',
    },
    false,
  );
  // 3 attempts x 120 s, 2 pauses of at most 2 s, 4 statements x 20 s, and 30 s of margin.
  assert.equal(leaseMs(slowBank), 3 * 120_000 + 2 * 2_000 + 4 * 20_000 + 30_000);
  const slowDatabase = loadConfig({ DB_STATEMENT_TIMEOUT_MS: '600000' }, false);
  assert.equal(leaseMs(slowDatabase), 4 * 600_000 + 30_000);
});
