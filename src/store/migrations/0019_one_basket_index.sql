-- A basket's payments are found by the unique index on (basket_id, tpp_payment_reference), which has
-- the same condition and leads with the basket: payments_basket only cost every basket payment an
-- index entry more (issue 18).
DROP INDEX payments_basket;
