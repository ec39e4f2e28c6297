-- Bookings are never changed, as their entries are not (trigger bookings_unchangeable, migration 0020).
CREATE OR REPLACE FUNCTION bookings_unchangeable() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'bookings are never changed: book a correction';
END $$;
