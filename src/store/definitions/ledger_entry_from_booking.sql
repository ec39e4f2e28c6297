-- An entry carries what its booking says of it (dates, names, remittance), copied from the booking as
-- the entry is written by a writer that does not give them (the sandbox's history; ledger_book writes
-- them itself). Bookings never change, so the copy cannot go stale. Trigger ledger_entries_from_booking
-- (migration 0021: only for an entry written without its transaction date).
CREATE OR REPLACE FUNCTION ledger_entry_from_booking() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  SELECT b.booked_on, b.transaction_date, b.debtor_name, b.creditor_name, b.remittance
    INTO NEW.booked_on, NEW.transaction_date, NEW.debtor_name, NEW.creditor_name, NEW.remittance
    FROM bookings b WHERE b.booking_id = NEW.booking_id;
  RETURN NEW;
END $$;
