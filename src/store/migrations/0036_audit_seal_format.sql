-- Issue 39: the format of a seal's record digests (store/audit/seal.ts CANONICAL). The seals made before
-- this migration are of format 1 (a JSON array per record); the sealer names the format of each seal it
-- makes, and verify reads each seal in its own.
ALTER TABLE audit_seals ADD COLUMN format smallint NOT NULL DEFAULT 1;
