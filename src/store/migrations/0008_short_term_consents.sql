-- Swedish short-term consents (individual PSUs): a PIS-scoped authorization to read the account list,
-- balances and cards a few times within a short validity. Accounts get a balance (sandbox: static).

ALTER TABLE accounts ADD COLUMN balance_minor bigint NOT NULL DEFAULT 0;

CREATE TABLE consents (
  consent_id    text PRIMARY KEY,
  client_id     text NOT NULL REFERENCES apps (client_id),
  kind          text NOT NULL CHECK (kind IN ('short-term')),
  access        text NOT NULL CHECK (access IN ('ALL_ACCOUNTS')),
  status        text NOT NULL CHECK (status IN ('received', 'valid', 'rejected', 'expired')),
  psu_id        text REFERENCES psus (psu_id),
  valid_until   timestamptz,
  reads_left    integer NOT NULL CHECK (reads_left >= 0),
  created_at    timestamptz NOT NULL,
  CHECK ((status = 'valid') <= (psu_id IS NOT NULL AND valid_until IS NOT NULL))
);
