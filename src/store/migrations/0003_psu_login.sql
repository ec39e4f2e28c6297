-- The live redirect flow: PSU credentials of the built-in PSU directory, and the authorization
-- requests a PSU works through on our login and consent pages.

CREATE TABLE psu_credentials (
  psu_id           text PRIMARY KEY REFERENCES psus (psu_id),
  -- scrypt: "scrypt$<salt hex>$<key hex>"
  password_hash    text NOT NULL,
  failed_attempts  integer NOT NULL DEFAULT 0 CHECK (failed_attempts >= 0),
  locked_until     timestamptz
);

CREATE TABLE auth_requests (
  request_hash     text PRIMARY KEY CHECK (request_hash ~ '^[0-9a-f]{64}$'),
  csrf_hash        text NOT NULL CHECK (csrf_hash ~ '^[0-9a-f]{64}$'),
  client_id        text NOT NULL REFERENCES apps (client_id),
  redirect_uri     text NOT NULL,
  scope            text NOT NULL,
  state            text NOT NULL,
  code_challenge   text,
  payment_id       text NOT NULL REFERENCES payments (payment_id),
  -- Who logged in, and the payment as the consent page showed it (dynamic linking).
  psu_id           text REFERENCES psus (psu_id),
  shown_payment    text,
  status           text NOT NULL CHECK (status IN ('login', 'consent', 'done')),
  created_at       timestamptz NOT NULL,
  last_activity    timestamptz NOT NULL,
  CHECK ((status = 'consent') <= (psu_id IS NOT NULL AND shown_payment IS NOT NULL))
);
