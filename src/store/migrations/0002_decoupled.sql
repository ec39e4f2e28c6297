-- The Swedish decoupled (mobile e-ID) authorization: the TPP's sessions, and the orders of the built-in
-- e-ID simulator (live mode). Tokens may now also come from a decoupled session.

ALTER TABLE access_tokens DROP CONSTRAINT access_tokens_kind_check;
ALTER TABLE access_tokens ADD CONSTRAINT access_tokens_kind_check
  CHECK (kind IN ('client_credentials', 'authorization_code', 'decoupled'));

CREATE TABLE eid_orders (
  order_ref          text PRIMARY KEY,
  personal_number    text NOT NULL,
  end_user_ip        text NOT NULL,
  visible_text       text NOT NULL,
  auto_start_token   text NOT NULL UNIQUE,
  qr_start_token     text NOT NULL UNIQUE,
  -- Never leaves the server: the QR code carries only HMACs made with it.
  qr_start_secret    text NOT NULL,
  status             text NOT NULL CHECK (status IN ('pending', 'failed', 'complete')),
  hint_code          text NOT NULL,
  created_at         timestamptz NOT NULL,
  started_at         timestamptz,
  ended_at           timestamptz,
  CHECK ((status = 'pending') = (ended_at IS NULL))
);

CREATE TABLE decoupled_sessions (
  session_hash    text PRIMARY KEY CHECK (session_hash ~ '^[0-9a-f]{64}$'),
  client_id       text NOT NULL REFERENCES apps (client_id),
  scope           text NOT NULL,
  psu_id          text NOT NULL REFERENCES psus (psu_id),
  psu_client_ip   text NOT NULL,
  same_device     boolean NOT NULL,
  order_ref       text NOT NULL,
  sleep_ms        integer NOT NULL CHECK (sleep_ms > 0),
  state           text NOT NULL CHECK (state IN ('active', 'complete', 'cancelled', 'failed')),
  polls           integer NOT NULL DEFAULT 0,
  early_polls     integer NOT NULL DEFAULT 0,
  last_poll_at    timestamptz,
  created_at      timestamptz NOT NULL,
  ended_at        timestamptz,
  CHECK ((state = 'active') = (ended_at IS NULL))
);
