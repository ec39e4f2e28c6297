-- A payment's PSU holds its debtor account (issue 18). Initiation takes the payment's PSU from the
-- debtor account, and a basket's payments are all of its PSU's accounts; the database now says so too.
-- One foreign key on (debtor account, PSU) replaces the two on each alone: the PSU exists because the
-- account's PSU does (accounts.psu_id references psus), and every payment written checks one key less
-- (a basket of 20, twenty lookups and row locks fewer). Refuses to run if a stored payment names a PSU
-- that does not hold its debtor account.
ALTER TABLE accounts ADD CONSTRAINT accounts_account_psu UNIQUE (account_id, psu_id);
ALTER TABLE payments
  ADD CONSTRAINT payments_debtor_account_of_psu
    FOREIGN KEY (debtor_account_id, psu_id) REFERENCES accounts (account_id, psu_id),
  DROP CONSTRAINT payments_debtor_account_id_fkey,
  DROP CONSTRAINT payments_psu_id_fkey;
