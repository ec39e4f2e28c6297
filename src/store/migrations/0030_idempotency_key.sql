-- Issue 40: TPP-Request-ID is a correlation id only (clients of the real service send one value for every
-- call and every run); a retry is recognised by the Idempotency-Key header (draft-ietf-httpapi-idempotency-
-- key-header) instead, scoped to the app, the operation and the key. The answers recorded by TPP-Request-ID
-- mean nothing under the new key, so the claims get a table of their own. The old idempotency_keys stays
-- as it was, so that processes of the earlier build still running during a rolling deploy keep working
-- (they write their answers there, unread by this build); a later migration drops it.
--
-- A row is a claim while its request is in flight (`claim` holds the claimant's token, `lease_until` the
-- time after which a crashed claimant no longer holds the key), then the answer once the work committed:
-- the answer is written by the statement or transaction that did the work, and only by the claimant.
CREATE TABLE idempotency_claims (
  client_id        text NOT NULL,
  operation        text NOT NULL,
  idempotency_key  text NOT NULL,
  fingerprint      text NOT NULL,
  claim            text,
  lease_until      timestamptz,
  status_code      integer,
  body             jsonb,
  created_at       timestamptz NOT NULL,
  PRIMARY KEY (client_id, operation, idempotency_key),
  CHECK ((claim IS NULL) = (lease_until IS NULL)),
  CHECK ((claim IS NULL) = (status_code IS NOT NULL AND body IS NOT NULL))
);

-- The purge of keys past their 24 hours reads the oldest first.
CREATE INDEX idempotency_claims_created_at ON idempotency_claims (created_at);
