-- The sandbox payment flow: apps, PSUs and their accounts and cards, payments, codes, tokens and
-- the record of answered TPP-Request-IDs. Runs on PostgreSQL 15+ and PGlite.

CREATE TABLE apps (
  client_id     text PRIMARY KEY,
  name          text NOT NULL,
  description   text NOT NULL DEFAULT '',
  redirect_uri  text NOT NULL,
  seeded        boolean NOT NULL DEFAULT false,
  created_at    timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE psus (
  psu_id         text PRIMARY KEY,
  name           text NOT NULL,
  customer_type  text NOT NULL CHECK (customer_type IN ('private', 'corporate')),
  corporate_id   text UNIQUE CHECK (corporate_id ~ '^[0-9]{10}$'),
  CHECK ((customer_type = 'corporate') = (corporate_id IS NOT NULL))
);

CREATE TABLE accounts (
  account_id       text PRIMARY KEY,
  psu_id           text NOT NULL REFERENCES psus (psu_id),
  country          text NOT NULL CHECK (country ~ '^[A-Z]{2}$'),
  currency         text NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
  iban             text UNIQUE,
  bban             text,
  clearing_number  text,
  bic              text,
  account_type     text NOT NULL,
  name             text NOT NULL,
  owner_name       text NOT NULL,
  position         integer NOT NULL,
  UNIQUE (country, bban),
  CHECK (iban IS NOT NULL OR bban IS NOT NULL)
);
CREATE INDEX accounts_psu ON accounts (psu_id, position);

CREATE TABLE cards (
  card_id     text PRIMARY KEY,
  account_id  text NOT NULL REFERENCES accounts (account_id),
  masked_pan  text NOT NULL CHECK (masked_pan ~ '^[0-9]{6}\*{6}[0-9]{4}$'),
  name        text NOT NULL
);

CREATE TABLE payments (
  payment_id                text PRIMARY KEY,
  client_id                 text NOT NULL REFERENCES apps (client_id),
  product                   text NOT NULL,
  country                   text NOT NULL,
  customer_type             text NOT NULL CHECK (customer_type IN ('private', 'corporate')),
  psu_id                    text NOT NULL REFERENCES psus (psu_id),
  corporate_id              text,
  debtor_account_id         text NOT NULL REFERENCES accounts (account_id),
  amount_minor              bigint NOT NULL CHECK (amount_minor > 0),
  currency                  text NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
  creditor_name             text,
  creditor_account          text NOT NULL,
  requested_execution_date  date,
  status                    text NOT NULL CHECK (status IN ('ACTC', 'ACCP', 'ACSC', 'ACCC', 'RJCT', 'CANC')),
  instruction               jsonb NOT NULL,
  created_at                timestamptz NOT NULL DEFAULT now(),
  executed_at               timestamptz,
  -- A payment leaves ACTC only by being executed.
  CHECK ((status = 'ACTC') = (executed_at IS NULL))
);
CREATE INDEX payments_client ON payments (client_id, created_at);

CREATE TABLE auth_codes (
  code_hash       text PRIMARY KEY CHECK (code_hash ~ '^[0-9a-f]{64}$'),
  client_id       text NOT NULL REFERENCES apps (client_id),
  redirect_uri    text NOT NULL,
  scope           text NOT NULL,
  psu_id          text NOT NULL REFERENCES psus (psu_id),
  code_challenge  text,
  expires_at      timestamptz NOT NULL,
  used_at         timestamptz,
  created_at      timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE access_tokens (
  token_hash  text PRIMARY KEY CHECK (token_hash ~ '^[0-9a-f]{64}$'),
  kind        text NOT NULL CHECK (kind IN ('client_credentials', 'authorization_code')),
  client_id   text NOT NULL REFERENCES apps (client_id),
  scope       text NOT NULL,
  psu_id      text REFERENCES psus (psu_id),
  -- The code this token was issued for: at most one token per code; a replayed code revokes it.
  code_hash   text UNIQUE REFERENCES auth_codes (code_hash),
  expires_at  timestamptz,
  revoked_at  timestamptz,
  created_at  timestamptz NOT NULL DEFAULT now(),
  CHECK ((kind = 'client_credentials') = (psu_id IS NULL)),
  CHECK ((kind = 'authorization_code') = (code_hash IS NOT NULL))
);

CREATE TABLE idempotency_keys (
  client_id    text NOT NULL REFERENCES apps (client_id),
  request_id   text NOT NULL,
  fingerprint  text NOT NULL,
  -- The answer, stored in the same transaction as the work it describes.
  status_code  integer NOT NULL,
  body         jsonb NOT NULL,
  created_at   timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (client_id, request_id)
);
