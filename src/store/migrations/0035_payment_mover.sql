-- Issue 39: who moved a payment's status. A statement of the gateway that moves a payment names the
-- mover in the row it updates (the TPP's call, the PSU on the dashboard, the gateway itself), so that
-- each row of a statement joined from concurrent requests (store/coalescer.ts) has its own; the
-- transition trigger (store/transition-rule.ts) records the mover and clears the column, so nothing
-- is ever stored in it: the check refuses an update that would leave a value (one that moves no
-- status). NOT VALID: every row has NULL already, and the check holds for every write from now on.
ALTER TABLE payments ADD COLUMN audit_actor jsonb;
ALTER TABLE payments ADD CONSTRAINT payments_audit_actor_cleared CHECK (audit_actor IS NULL) NOT VALID;
