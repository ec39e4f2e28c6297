-- The e-ID simulator's app shows an order only to the PSU who identified for it (issue 37): the
-- identification hands out a ticket, kept here as its SHA-256 hash, that the sign form carries.
ALTER TABLE eid_orders ADD COLUMN sign_ticket_hash text;
CREATE UNIQUE INDEX eid_orders_sign_ticket ON eid_orders (sign_ticket_hash);
