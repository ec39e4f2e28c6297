-- The bank's core banking system holds the accounts (issue 37). With the bank's own systems, the
-- gateway keeps no copy of its customers: a PSU the bank's login or e-ID identified, and an account
-- the core banking system confirmed as a PSU's, get a reference row on first sight, ids only, so that
-- every foreign key to psus and accounts (a payment belongs to its debtor account and that account's
-- PSU, a token to its PSU, ...) keeps holding. A reference row carries no customer data at all (the
-- checks below); the built-in systems' rows (the sandbox's customers) carry all of theirs, as before.
ALTER TABLE psus ADD COLUMN reference boolean NOT NULL DEFAULT false;
ALTER TABLE psus ALTER COLUMN name DROP NOT NULL, ALTER COLUMN customer_type DROP NOT NULL;
ALTER TABLE psus ADD CONSTRAINT psus_reference_holds_ids_only CHECK (
  CASE WHEN reference THEN name IS NULL AND customer_type IS NULL AND corporate_id IS NULL
       ELSE name IS NOT NULL AND customer_type IS NOT NULL END);

ALTER TABLE accounts ADD COLUMN reference boolean NOT NULL DEFAULT false;
ALTER TABLE accounts
  ALTER COLUMN country DROP NOT NULL,
  ALTER COLUMN currency DROP NOT NULL,
  ALTER COLUMN account_type DROP NOT NULL,
  ALTER COLUMN name DROP NOT NULL,
  ALTER COLUMN owner_name DROP NOT NULL,
  ALTER COLUMN position DROP NOT NULL;
-- Replaces CHECK (iban IS NOT NULL OR bban IS NOT NULL) of migration 0001.
ALTER TABLE accounts DROP CONSTRAINT accounts_check;
ALTER TABLE accounts ADD CONSTRAINT accounts_reference_holds_ids_only CHECK (
  CASE WHEN reference THEN country IS NULL AND currency IS NULL AND iban IS NULL AND bban IS NULL
         AND clearing_number IS NULL AND bic IS NULL AND account_type IS NULL AND name IS NULL
         AND owner_name IS NULL AND position IS NULL AND balance_minor = 0 AND NOT blocked
         AND daily_limit_minor IS NULL
       ELSE (iban IS NOT NULL OR bban IS NOT NULL) AND country IS NOT NULL AND currency IS NOT NULL
         AND account_type IS NOT NULL AND name IS NOT NULL AND owner_name IS NOT NULL
         AND position IS NOT NULL END);
