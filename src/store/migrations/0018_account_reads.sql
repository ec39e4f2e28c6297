-- Account-information reads (issue 18) find what they show by the account, whatever the statistics
-- and the period asked: a statement is a range of one index, not a join of every booking of the
-- period (which the planner chose whenever it could not know the dates: prepared and batched reads).

-- An entry carries its booking's date, set from the booking as the entry is written, whoever writes it
-- (the ledger's bookings, the sandbox's history); bookings never change their date.
ALTER TABLE ledger_entries ADD COLUMN booked_on date;
-- Filling the new column is the one change entries ever get (0017 refuses every other).
ALTER TABLE ledger_entries DISABLE TRIGGER ledger_entries_unchangeable;
UPDATE ledger_entries e SET booked_on = b.booked_on FROM bookings b WHERE b.booking_id = e.booking_id;
ALTER TABLE ledger_entries ENABLE TRIGGER ledger_entries_unchangeable;
ALTER TABLE ledger_entries ALTER COLUMN booked_on SET NOT NULL;
CREATE FUNCTION ledger_entry_booked_on() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  SELECT b.booked_on INTO NEW.booked_on FROM bookings b WHERE b.booking_id = NEW.booking_id;
  RETURN NEW;
END $$;
CREATE TRIGGER ledger_entries_booked_on BEFORE INSERT ON ledger_entries
  FOR EACH ROW EXECUTE FUNCTION ledger_entry_booked_on();
CREATE INDEX ledger_entries_statement ON ledger_entries (ledger_account, booked_on, entry_id);
-- It serves every search by the account alone too.
DROP INDEX ledger_entries_account;

-- An account's payments waiting for their date, by the account rather than every waiting payment.
CREATE INDEX payments_scheduled_debits ON payments (debtor_account_id, requested_execution_date)
  WHERE status = 'ACCP';
