-- Executions that arrive together are booked in one statement and one commit (issue 18): under 50
-- concurrent executions half of PostgreSQL's busy backends waited on the WAL, one commit and one flush
-- for each. ledger_execute_all books each item as ledger_execute does, one after the other in one
-- transaction, and answers their answers in order.
--
-- p_items: [{key, bookingDate, lines, at, payment}], ledger_execute's arguments but the rules, which all
-- items share (p_rules).
--
-- Before any item books, every account that any item may debit or credit is locked in id order: the
-- debtors, and every account whose BBAN or IBAN is a creditor account of a line within the bank (a
-- superset of what ledger_book credits). Each item's ledger_book then locks only accounts this
-- transaction holds, so concurrent statements never wait on each other in a circle (a transaction waits
-- for accounts while it holds no payment, and holds all its accounts before it locks a payment). An
-- item that raises fails the statement; the caller then books each item alone (src/store/coalescer.ts).
CREATE OR REPLACE FUNCTION ledger_execute_all(p_items jsonb, p_rules jsonb)
RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
  item jsonb;
  answers jsonb := '[]';
  creditors text[];
BEGIN
  SELECT coalesce(array_agg(l ->> 'creditorAccount'), '{}') INTO creditors
    FROM jsonb_array_elements(p_items) i, jsonb_array_elements(i -> 'lines') l
   WHERE (l ->> 'withinBank')::boolean;
  PERFORM 1 FROM accounts
   WHERE account_id = ANY (
           ARRAY(SELECT l ->> 'debtorAccountId'
                   FROM jsonb_array_elements(p_items) i, jsonb_array_elements(i -> 'lines') l)
           || ARRAY(SELECT a.account_id FROM accounts a WHERE a.bban = ANY (creditors)
                    UNION SELECT a.account_id FROM accounts a WHERE a.iban = ANY (creditors)))
   ORDER BY account_id FOR NO KEY UPDATE;
  FOR item IN SELECT value FROM jsonb_array_elements(p_items) LOOP
    answers := answers || jsonb_build_array(
      ledger_execute(item ->> 'key', (item ->> 'bookingDate')::date, item -> 'lines', p_rules,
                     (item ->> 'at')::timestamptz, item -> 'payment'));
  END LOOP;
  RETURN answers;
END $$;
