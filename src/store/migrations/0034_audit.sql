-- Issue 39: the audit trail. Each record is written by the transaction (or the single statement) that
-- makes the change it records; `xid` comes first so that the writing transaction has its id before the
-- record takes its `seq` (the sealer relies on it, store/audit/seal.ts). Records are never updated:
-- the sealer chains contiguous ranges of them into audit_seals with an HMAC (AUDIT_KEY).
CREATE TABLE audit_events (
  xid xid8 NOT NULL DEFAULT pg_current_xact_id(),
  seq bigserial PRIMARY KEY,
  at timestamptz NOT NULL DEFAULT now(),
  event text NOT NULL,
  outcome text NOT NULL,
  resource text,
  tpp_id text,
  app_id text,
  certificate text,
  psu_id text,
  address text,
  correlation_id text,
  detail jsonb
);
CREATE INDEX audit_events_at ON audit_events (at);

-- One row per sealed range: the seq of each record seen in it and the first 16 bytes of the SHA-256
-- of its canonical text, and the MAC over them chained with the previous seal's.
CREATE TABLE audit_seals (
  from_seq bigint PRIMARY KEY,
  to_seq bigint NOT NULL,
  count integer NOT NULL,
  seqs bigint[] NOT NULL,
  digests bytea NOT NULL,
  last_at timestamptz,
  prev_mac bytea,
  mac bytea NOT NULL,
  sealed_at timestamptz NOT NULL DEFAULT now()
);

-- The sealers' lock (one row, locked FOR UPDATE by whoever seals), the range they saw end last
-- (pending_seq, once every transaction open then, below pending_xmax, has finished) and, in the
-- sandbox without AUDIT_KEY, the key they generated.
CREATE TABLE audit_sealer (
  id integer PRIMARY KEY CHECK (id = 1),
  pending_seq bigint,
  pending_xmax xid8,
  generated_key text
);
INSERT INTO audit_sealer (id) VALUES (1);

-- A consent's expiry is recorded once, when the gateway first refuses it for that (no status changes).
CREATE UNIQUE INDEX audit_events_consent_expired ON audit_events (resource) WHERE event = 'consent.expired';
