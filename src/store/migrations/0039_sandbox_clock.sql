-- Issue 41: a sandbox that takes time. Each app's sandbox clock is real time plus its offset, kept here
-- so that every worker agrees (no row: offset zero; POST /sandbox/reset deletes the rows). The bound is
-- the total a TPP may advance (P1000D). Live never reads or writes this table.
CREATE TABLE sandbox_clocks (
  app_id text PRIMARY KEY REFERENCES apps (client_id) ON DELETE CASCADE,
  offset_ms bigint NOT NULL CHECK (offset_ms > 0 AND offset_ms <= 86400000000),
  updated_at timestamptz NOT NULL DEFAULT now()
);
-- A payment accepted at execution and waiting for its settlement (a sandbox scenario: ACCP, then ACSC
-- or RJCT): the bank day it settles on. Pending in its account's transactions until then.
ALTER TABLE payments ADD COLUMN settles_on date;
CREATE INDEX payments_settling ON payments (settles_on) WHERE status = 'ACCP' AND settles_on IS NOT NULL;
