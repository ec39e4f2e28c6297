-- Indexes that no statement uses cost every row written an entry each (issue 18).
-- A basket's payments are found by the unique index on (basket_id, tpp_payment_reference), which has
-- the same condition and leads with the basket.
DROP INDEX payments_basket;
-- No statement looks payments up by app: a payment is read by its id, a basket's by the basket, the
-- waiting ones by date or debtor account, the bookings under way by key. Apps are never deleted and
-- their ids never change, so the foreign key needs no index on this side either. It was an entry for
-- every initiation and for every execution's two updates.
DROP INDEX payments_client;
-- Bookings are never searched by their date alone: a statement finds its lines by the account's
-- entries (ledger_entries_statement, which carries the date since 0018), and the daily limit sums an
-- account's entries joined with their bookings by id. It was an entry for every booking.
DROP INDEX bookings_booked_on;
