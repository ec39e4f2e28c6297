-- Entries are never changed: a correction is a booking of its own (trigger ledger_entries_unchangeable,
-- migration 0017).
CREATE OR REPLACE FUNCTION ledger_entries_unchangeable() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'ledger entries are never changed: book a correction';
END $$;
