-- Account information (issue 6): account consents next to the short-term ones, their daily use by the
-- TPP, card accounts (credit cards: a ledger account of their own with a credit limit), and bookings
-- that say what they were (payments and the sandbox's transaction history alike).

ALTER TABLE consents DROP CONSTRAINT consents_kind_check;
ALTER TABLE consents ADD CONSTRAINT consents_kind_check
  CHECK (kind IN ('short-term', 'accounts', 'accounts-gb'));
ALTER TABLE consents DROP CONSTRAINT consents_status_check;
ALTER TABLE consents ADD CONSTRAINT consents_status_check
  CHECK (status IN ('received', 'valid', 'rejected', 'expired', 'terminatedByTpp'));
-- Short-term consents count reads; account consents have a daily frequency instead.
ALTER TABLE consents ALTER COLUMN reads_left DROP NOT NULL;
ALTER TABLE consents ADD COLUMN frequency_per_day integer CHECK (frequency_per_day BETWEEN 1 AND 4);
-- The PSU the TPP named at creation (PSU-ID): only that PSU may approve.
ALTER TABLE consents ADD COLUMN requested_psu_id text REFERENCES psus (psu_id);
ALTER TABLE consents ADD COLUMN terminated_at timestamptz;

-- Reads without the PSU present, per consent, day and resource (PSD2 RTS art. 36(5): at most 4 a day).
CREATE TABLE consent_usage (
  consent_id  text NOT NULL REFERENCES consents (consent_id) ON DELETE CASCADE,
  day         date NOT NULL,
  resource    text NOT NULL,
  reads       integer NOT NULL CHECK (reads > 0),
  PRIMARY KEY (consent_id, day, resource)
);

CREATE TABLE card_accounts (
  card_account_id     text PRIMARY KEY,
  psu_id              text NOT NULL REFERENCES psus (psu_id),
  currency            text NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
  product             text NOT NULL,
  owner_name          text NOT NULL,
  credit_limit_minor  bigint NOT NULL CHECK (credit_limit_minor >= 0),
  -- The opening balance (negative: owed to the bank); the balance is this plus the ledger's entries.
  balance_minor       bigint NOT NULL DEFAULT 0,
  position            integer NOT NULL
);

-- A card draws on an account (debit card) or on a card account (credit card).
ALTER TABLE cards ALTER COLUMN account_id DROP NOT NULL;
ALTER TABLE cards ADD COLUMN card_account_id text REFERENCES card_accounts (card_account_id);
ALTER TABLE cards ADD CONSTRAINT cards_one_owner CHECK ((account_id IS NULL) <> (card_account_id IS NULL));

-- A booking is a payment's, or (payment_id NULL) one of the sandbox's history. What a statement shows:
ALTER TABLE bookings ALTER COLUMN payment_id DROP NOT NULL;
ALTER TABLE bookings ADD COLUMN transaction_date date;
ALTER TABLE bookings ADD COLUMN debtor_name text;
ALTER TABLE bookings ADD COLUMN creditor_name text;
ALTER TABLE bookings ADD COLUMN remittance text;
UPDATE bookings b SET transaction_date = b.booked_on,
       creditor_name = p.creditor_name,
       debtor_name = (SELECT a.owner_name FROM accounts a WHERE a.account_id = p.debtor_account_id)
  FROM payments p WHERE p.payment_id = b.payment_id;
ALTER TABLE bookings ALTER COLUMN transaction_date SET NOT NULL;
CREATE INDEX bookings_booked_on ON bookings (booked_on);
