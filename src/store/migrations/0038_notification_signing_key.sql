-- Issue 41: the key that signs status notifications (RFC 9421) in the sandbox without
-- NOTIFICATION_SIGNING_KEY: generated once by whichever process needs it first and kept here, so that
-- every worker and every restart signs with the same key and the JWKS stays the one a TPP fetched.
-- Live never writes it: the key is the bank's, in a file the setting names.
CREATE TABLE notification_signing_key (
  id integer PRIMARY KEY CHECK (id = 1),
  private_key text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
