-- Booking through a port (issue 12): the core banking system need not share the gateway's
-- transaction, so a payment records that its booking was asked (the order's idempotency key and when)
-- before the system is asked, and clears it with the outcome. A payment still marked after a crash is
-- asked again under the same key, which books nothing twice.
ALTER TABLE payments ADD COLUMN booking_key text;
ALTER TABLE payments ADD COLUMN booking_started_at timestamptz;
ALTER TABLE payments ADD CONSTRAINT payments_booking_marked
  CHECK ((booking_key IS NULL) = (booking_started_at IS NULL));
CREATE INDEX payments_booking_under_way ON payments (booking_started_at) WHERE booking_key IS NOT NULL;
CREATE INDEX payments_booking_key ON payments (booking_key) WHERE booking_key IS NOT NULL;

-- The built-in ledger's answer to every order it was given, under the order's key: asked again, it
-- answers the same, a rejection included.
CREATE TABLE ledger_orders (
  order_key   text PRIMARY KEY,
  booked      boolean NOT NULL,
  reason_code text,
  reason      text,
  created_at  timestamptz NOT NULL,
  CHECK (booked = (reason_code IS NULL AND reason IS NULL))
);
