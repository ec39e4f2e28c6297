-- Swedish signing baskets: several payments of one PSU authorized and executed together.

CREATE TABLE signing_baskets (
  basket_id    text PRIMARY KEY,
  client_id    text NOT NULL REFERENCES apps (client_id),
  psu_id       text NOT NULL REFERENCES psus (psu_id),
  created_at   timestamptz NOT NULL DEFAULT now()
);

ALTER TABLE payments ADD COLUMN basket_id text REFERENCES signing_baskets (basket_id);
ALTER TABLE payments ADD COLUMN tpp_payment_reference text;
CREATE INDEX payments_basket ON payments (basket_id) WHERE basket_id IS NOT NULL;
-- Within a basket every payment has its own reference.
CREATE UNIQUE INDEX payments_basket_reference ON payments (basket_id, tpp_payment_reference)
  WHERE basket_id IS NOT NULL;
ALTER TABLE payments ADD CONSTRAINT payments_basket_has_reference
  CHECK (basket_id IS NULL OR tpp_payment_reference IS NOT NULL);

-- A PSU's login may now be for a basket: the request names a payment or a basket.
ALTER TABLE auth_requests DROP CONSTRAINT auth_requests_payment_id_fkey;
ALTER TABLE auth_requests RENAME COLUMN payment_id TO resource_id;
