-- Live onboarding: TPPs enrolled from their certificates, the certificates each TPP may use, apps
-- registered by TPPs and their product subscriptions; tokens bound to a certificate (RFC 8705).

CREATE TABLE tpps (
  tpp_id                   text PRIMARY KEY,
  organization_identifier  text NOT NULL UNIQUE,
  name                     text NOT NULL,
  created_at               timestamptz NOT NULL
);

CREATE TABLE tpp_certificates (
  thumbprint   text PRIMARY KEY CHECK (thumbprint ~ '^[0-9a-f]{64}$'),
  tpp_id       text NOT NULL REFERENCES tpps (tpp_id),
  scopes       text NOT NULL,
  not_after    timestamptz NOT NULL,
  added_at     timestamptz NOT NULL
);
CREATE INDEX tpp_certificates_tpp ON tpp_certificates (tpp_id);

ALTER TABLE apps ADD COLUMN tpp_id text REFERENCES tpps (tpp_id);

CREATE TABLE subscriptions (
  subscription_id  text PRIMARY KEY,
  client_id        text NOT NULL REFERENCES apps (client_id),
  product_name     text NOT NULL,
  created_at       timestamptz NOT NULL,
  UNIQUE (client_id, product_name)
);

-- A PSD2-ADMIN token belongs to a TPP, not an app.
ALTER TABLE access_tokens DROP CONSTRAINT access_tokens_client_id_fkey;
ALTER TABLE access_tokens ADD COLUMN cert_thumbprint text;

-- Onboarding calls are made by a TPP before it has an app: their request ids are the TPP's.
ALTER TABLE idempotency_keys DROP CONSTRAINT idempotency_keys_client_id_fkey;
