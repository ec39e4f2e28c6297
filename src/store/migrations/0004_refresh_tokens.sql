-- Refresh tokens for account-access authorizations (payments get none). Each use rotates the token;
-- a used one presented again revokes its whole family (RFC 9700).

ALTER TABLE access_tokens DROP CONSTRAINT access_tokens_kind_check;
ALTER TABLE access_tokens ADD CONSTRAINT access_tokens_kind_check
  CHECK (kind IN ('client_credentials', 'authorization_code', 'decoupled', 'refresh_token'));

CREATE TABLE refresh_tokens (
  token_hash   text PRIMARY KEY CHECK (token_hash ~ '^[0-9a-f]{64}$'),
  family_id    text NOT NULL,
  client_id    text NOT NULL REFERENCES apps (client_id),
  scope        text NOT NULL,
  psu_id       text NOT NULL REFERENCES psus (psu_id),
  expires_at   timestamptz NOT NULL,
  used_at      timestamptz,
  revoked_at   timestamptz,
  created_at   timestamptz NOT NULL
);
CREATE INDEX refresh_tokens_family ON refresh_tokens (family_id);
