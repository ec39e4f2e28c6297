-- Sandbox scenarios (issue 14).
-- Accounts whose rules the ledger applies in the sandbox too (blocked, funds, daily limit, type):
-- the test accounts that rehearse rejected executions.
ALTER TABLE accounts ADD COLUMN enforce_rules boolean NOT NULL DEFAULT false;
-- The e-ID simulator counts the collects of an order, so that a scripted order ends at a given poll.
ALTER TABLE eid_orders ADD COLUMN collects integer NOT NULL DEFAULT 0;
-- A consent the PSU revoked at the bank.
ALTER TABLE consents DROP CONSTRAINT consents_status_check;
ALTER TABLE consents ADD CONSTRAINT consents_status_check
  CHECK (status IN ('received', 'valid', 'rejected', 'expired', 'terminatedByTpp', 'revokedByPsu'));
