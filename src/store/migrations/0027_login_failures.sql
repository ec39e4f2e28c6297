-- Failed PSU logins are counted by the gateway, for any PSU id typed, known to the bank or not (issue 37):
-- per PSU id and client address (a stranger's failures lock only the stranger's address out), and per
-- PSU id over every address (address '', a much higher cap that bounds guessing from many addresses).
-- The PSU id is kept as its SHA-256 (hex): typed input is neither stored nor bounded in length. The
-- built-in directory's own per-credential lock goes: it answered known ids otherwise than unknown ones.
CREATE TABLE login_failures (
  psu_key          text NOT NULL CHECK (psu_key ~ '^[0-9a-f]{64}$'),
  address          text NOT NULL,
  failures         integer NOT NULL CHECK (failures > 0),
  locked_until     timestamptz,
  last_failure_at  timestamptz NOT NULL,
  PRIMARY KEY (psu_key, address)
);
CREATE INDEX login_failures_last_failure ON login_failures (last_failure_at);

ALTER TABLE psu_credentials DROP COLUMN failed_attempts, DROP COLUMN locked_until;

-- A consent's PSU-ID is what the TPP asked for, not necessarily a PSU the gateway holds: it is not looked
-- up when the consent is made (that answer told a TPP who is a customer), only compared with who approves.
ALTER TABLE consents DROP CONSTRAINT IF EXISTS consents_requested_psu_id_fkey;
