-- An account's booked balance (accounts and card_accounts: booked_minor) is its opening balance plus
-- its entries. A new row starts from its opening balance and whatever entries its id already has; a new
-- opening balance moves the booked one by as much. TG_ARGV[0] names the table's id column. Triggers
-- accounts_booked_on_insert, accounts_booked_on_opening and the card_accounts pair (migration 0017).
CREATE OR REPLACE FUNCTION booked_from_opening() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    NEW.booked_minor := NEW.balance_minor + coalesce(
      (SELECT sum(e.amount_minor) FROM ledger_entries e WHERE e.ledger_account = to_jsonb(NEW) ->> TG_ARGV[0]), 0);
  ELSE
    NEW.booked_minor := OLD.booked_minor + NEW.balance_minor - OLD.balance_minor;
  END IF;
  RETURN NEW;
END $$;
