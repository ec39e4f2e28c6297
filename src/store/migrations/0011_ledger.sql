-- The built-in core banking system as a double-entry ledger: each executed payment is one booking
-- whose entries sum to zero per currency. An account's booked balance is its opening balance plus its
-- entries. Accounts may be blocked and have a daily limit; a rejected payment keeps its reason.

ALTER TABLE accounts ADD COLUMN blocked boolean NOT NULL DEFAULT false;
ALTER TABLE accounts ADD COLUMN daily_limit_minor bigint CHECK (daily_limit_minor > 0);

CREATE TABLE bookings (
  booking_id   text PRIMARY KEY,
  -- One booking per payment, whatever the number of processes or retries.
  payment_id   text NOT NULL UNIQUE REFERENCES payments (payment_id),
  booked_on    date NOT NULL,
  created_at   timestamptz NOT NULL
);

CREATE TABLE ledger_entries (
  entry_id      bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  booking_id    text NOT NULL REFERENCES bookings (booking_id),
  -- A customer account id, or one of the bank's own: clearing:<currency>, fx:<currency>.
  ledger_account text NOT NULL,
  currency      text NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
  amount_minor  bigint NOT NULL CHECK (amount_minor <> 0)
);
CREATE INDEX ledger_entries_account ON ledger_entries (ledger_account);

ALTER TABLE payments ADD COLUMN reason_code text;
ALTER TABLE payments ADD COLUMN reason text;
ALTER TABLE payments ADD CONSTRAINT payments_rejection_reason
  CHECK ((status = 'RJCT') = (reason_code IS NOT NULL));
