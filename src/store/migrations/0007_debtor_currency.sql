-- The debtor account's currency, kept with the payment: cross-currency answers show the exchange.
ALTER TABLE payments ADD COLUMN debtor_currency text CHECK (debtor_currency ~ '^[A-Z]{3}$');
UPDATE payments p SET debtor_currency = a.currency FROM accounts a WHERE a.account_id = p.debtor_account_id;
ALTER TABLE payments ALTER COLUMN debtor_currency SET NOT NULL;
