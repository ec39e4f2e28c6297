-- Entries removed move the balances of the accounts they name back, once per statement (trigger
-- ledger_entries_removed, migration 0017).
CREATE OR REPLACE FUNCTION ledger_entries_removed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE accounts a SET booked_minor = a.booked_minor - m.delta
    FROM (SELECT ledger_account, sum(amount_minor) AS delta FROM removed GROUP BY ledger_account) m
   WHERE a.account_id = m.ledger_account;
  UPDATE card_accounts c SET booked_minor = c.booked_minor - m.delta
    FROM (SELECT ledger_account, sum(amount_minor) AS delta FROM removed GROUP BY ledger_account) m
   WHERE c.card_account_id = m.ledger_account;
  RETURN NULL;
END $$;
