-- Statement lines are read from the entries alone (issue 18): an entry carries what its booking says
-- of it (dates, names, remittance), copied from the booking as the entry is written, as 0018 did with
-- the date. A transactions read is then one range of ledger_entries_statement and the rows it points
-- to; the probe into bookings for every line was most of the read (2.7 times the time for 20 accounts
-- of 40 lines). Bookings and entries never change, so the copy cannot go stale: bookings now refuse
-- updates as entries do.
ALTER TABLE ledger_entries ADD COLUMN transaction_date date, ADD COLUMN debtor_name text,
  ADD COLUMN creditor_name text, ADD COLUMN remittance text;
-- Filling the new columns is a change entries get once (0017 refuses every other).
ALTER TABLE ledger_entries DISABLE TRIGGER ledger_entries_unchangeable;
UPDATE ledger_entries e
   SET transaction_date = b.transaction_date, debtor_name = b.debtor_name, creditor_name = b.creditor_name,
       remittance = b.remittance
  FROM bookings b WHERE b.booking_id = e.booking_id;
ALTER TABLE ledger_entries ENABLE TRIGGER ledger_entries_unchangeable;
ALTER TABLE ledger_entries ALTER COLUMN transaction_date SET NOT NULL;

CREATE OR REPLACE FUNCTION ledger_entry_booked_on() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  SELECT b.booked_on, b.transaction_date, b.debtor_name, b.creditor_name, b.remittance
    INTO NEW.booked_on, NEW.transaction_date, NEW.debtor_name, NEW.creditor_name, NEW.remittance
    FROM bookings b WHERE b.booking_id = NEW.booking_id;
  RETURN NEW;
END $$;
-- It sets more than the date now: named for what it does.
ALTER FUNCTION ledger_entry_booked_on() RENAME TO ledger_entry_from_booking;
ALTER TRIGGER ledger_entries_booked_on ON ledger_entries RENAME TO ledger_entries_from_booking;

CREATE FUNCTION bookings_unchangeable() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'bookings are never changed: book a correction';
END $$;
CREATE TRIGGER bookings_unchangeable BEFORE UPDATE ON bookings
  FOR EACH STATEMENT EXECUTE FUNCTION bookings_unchangeable();

-- ledger_book (0017) sums the debtor's debits of the booking date by the entries' own date, a range
-- of ledger_entries_statement, instead of every entry of the account joined with its booking (which
-- grew with the account's history). The one statement changes in the function's stored text; the
-- rest stays as 0017 wrote it.
DO $migration$
DECLARE
  definition text := pg_get_functiondef('ledger_book(text, date, jsonb, jsonb, timestamptz)'::regprocedure);
  by_booking text := 'FROM ledger_entries e JOIN bookings b ON b.booking_id = e.booking_id
       WHERE e.ledger_account = debtor.account_id AND e.amount_minor < 0 AND b.booked_on = p_booking_date;';
  by_entry text := 'FROM ledger_entries e
       WHERE e.ledger_account = debtor.account_id AND e.booked_on = p_booking_date AND e.amount_minor < 0;';
BEGIN
  IF position(by_booking IN definition) = 0 THEN
    RAISE EXCEPTION 'ledger_book is not the function of migration 0017';
  END IF;
  EXECUTE replace(definition, by_booking, by_entry);
END $migration$;
