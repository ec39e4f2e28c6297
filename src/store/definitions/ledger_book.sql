-- An order booked in one call (src/adapters/ledger-core-banking.ts says what it decides and why):
-- the accounts it debits and credits locked in id order (orders never deadlock), an order answered
-- before answers the same, then the refusals (p_rules), the bookings and the outcome under the key.
-- A line whose debtor account is in another currency needs its debit converted by the caller: without
-- it the call books nothing and answers {"accountCurrencies": {account id: currency}}.
-- p_lines: [{paymentId, debtorAccountId, currency, minor, debitMinor?, creditorAccount, creditorName,
-- withinBank, toOtherBank, remittance, initiatedOn, enforce}]; p_rules: {notForOtherBanks,
-- notForPayments: [...], refusals: {blocked, otherBanks, accountType, funds, dailyLimit}: outcomes}.
--
-- Each debtor account is read once; the entries are written with what their booking says of them (the
-- row trigger ledger_entries_from_booking then has nothing to copy), two rows for one currency or four
-- through the fx accounts; the balances are kept by the statement trigger ledger_entries_added
-- (migration 0021 measured why: -11% instructions a call).
CREATE OR REPLACE FUNCTION ledger_book(p_key text, p_booking_date date, p_lines jsonb, p_rules jsonb,
                                       p_at timestamptz)
RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
  item jsonb;
  i integer;
  n integer := jsonb_array_length(p_lines);
  debtor accounts%ROWTYPE;
  debtors accounts[] := '{}';
  earlier ledger_orders%ROWTYPE;
  credited text[] := '{}';
  creditor_names text[] := '{}';
  c_id text;
  c_currency text;
  c_owner text;
  debit bigint;
  line_minor bigint;
  line_currency text;
  taken jsonb := '{}';
  already bigint;
  debited bigint;
  currencies jsonb := '{}';
  outcome jsonb := '{"booked": true}';
  booking text;
  transaction_on date;
BEGIN
  FOR i IN 0 .. n - 1 LOOP
    item := p_lines -> i;
    c_id := NULL; c_currency := NULL; c_owner := NULL;
    IF (item ->> 'withinBank')::boolean THEN
      SELECT account_id, currency, owner_name INTO c_id, c_currency, c_owner FROM accounts
       WHERE bban = item ->> 'creditorAccount' OR iban = item ->> 'creditorAccount' LIMIT 1;
    END IF;
    credited := credited || CASE WHEN c_currency = item ->> 'currency' THEN c_id
                                 ELSE 'clearing:' || (item ->> 'currency') END;
    creditor_names := creditor_names || coalesce(item ->> 'creditorName', c_owner);
  END LOOP;
  PERFORM 1 FROM accounts
   WHERE account_id = ANY (ARRAY(SELECT l ->> 'debtorAccountId' FROM jsonb_array_elements(p_lines) l) || credited)
   ORDER BY account_id FOR NO KEY UPDATE;
  SELECT * INTO earlier FROM ledger_orders WHERE order_key = p_key;
  IF FOUND THEN
    RETURN CASE WHEN earlier.booked THEN '{"booked": true}'::jsonb
                ELSE jsonb_build_object('booked', false, 'reasonCode', earlier.reason_code, 'reason', earlier.reason) END;
  END IF;
  -- Each debtor read once, after the lock: the checks and the bookings below use these rows.
  FOR i IN 0 .. n - 1 LOOP
    item := p_lines -> i;
    SELECT * INTO debtor FROM accounts WHERE account_id = item ->> 'debtorAccountId';
    IF NOT FOUND THEN
      RAISE EXCEPTION 'booking order %: no account %', p_key, item ->> 'debtorAccountId';
    END IF;
    debtors := debtors || debtor;
    IF debtor.currency <> item ->> 'currency' AND item ->> 'debitMinor' IS NULL THEN
      currencies := currencies || jsonb_build_object(debtor.account_id, debtor.currency);
    END IF;
  END LOOP;
  IF currencies <> '{}' THEN
    RETURN jsonb_build_object('accountCurrencies', currencies);
  END IF;
  FOR i IN 0 .. n - 1 LOOP
    item := p_lines -> i;
    debtor := debtors[i + 1];
    debit := coalesce((item ->> 'debitMinor')::bigint, (item ->> 'minor')::bigint);
    CONTINUE WHEN NOT ((item ->> 'enforce')::boolean OR debtor.enforce_rules);
    already := coalesce((taken ->> debtor.account_id)::bigint, 0);
    IF debtor.blocked THEN
      outcome := p_rules -> 'refusals' -> 'blocked';
    ELSIF (item ->> 'toOtherBank')::boolean AND debtor.account_type = p_rules ->> 'notForOtherBanks' THEN
      outcome := p_rules -> 'refusals' -> 'otherBanks';
    ELSIF p_rules -> 'notForPayments' ? debtor.account_type THEN
      outcome := p_rules -> 'refusals' -> 'accountType';
    ELSIF already + debit > debtor.booked_minor THEN
      outcome := p_rules -> 'refusals' -> 'funds';
    ELSIF debtor.daily_limit_minor IS NOT NULL THEN
      SELECT coalesce(-sum(e.amount_minor), 0) INTO debited
        FROM ledger_entries e
       WHERE e.ledger_account = debtor.account_id AND e.booked_on = p_booking_date AND e.amount_minor < 0;
      IF debited + already + debit > debtor.daily_limit_minor THEN
        outcome := p_rules -> 'refusals' -> 'dailyLimit';
      END IF;
    END IF;
    EXIT WHEN NOT (outcome ->> 'booked')::boolean;
    taken := taken || jsonb_build_object(debtor.account_id, already + debit);
  END LOOP;
  IF (outcome ->> 'booked')::boolean THEN
    FOR i IN 0 .. n - 1 LOOP
      item := p_lines -> i;
      debtor := debtors[i + 1];
      line_currency := item ->> 'currency';
      line_minor := (item ->> 'minor')::bigint;
      debit := coalesce((item ->> 'debitMinor')::bigint, line_minor);
      booking := gen_random_uuid()::text;
      transaction_on := least((item ->> 'initiatedOn')::date, p_booking_date);
      INSERT INTO bookings (booking_id, payment_id, booked_on, transaction_date, debtor_name, creditor_name,
                            remittance, created_at)
      VALUES (booking, item ->> 'paymentId', p_booking_date, transaction_on,
              debtor.owner_name, creditor_names[i + 1], item ->> 'remittance', p_at)
      ON CONFLICT DO NOTHING;
      IF NOT FOUND THEN
        RAISE EXCEPTION 'payment % is booked already', item ->> 'paymentId';
      END IF;
      -- The entries carry what the booking says (their trigger then has nothing to copy): the debtor,
      -- the fx pair when the currencies differ, then the creditor (or the clearing account).
      IF debtor.currency = line_currency THEN
        INSERT INTO ledger_entries (booking_id, ledger_account, currency, amount_minor, booked_on,
                                    transaction_date, debtor_name, creditor_name, remittance)
        SELECT booking, e.account, e.currency, e.amount, p_booking_date, transaction_on, debtor.owner_name,
               creditor_names[i + 1], item ->> 'remittance'
          FROM (VALUES (debtor.account_id, line_currency, -debit),
                       (credited[i + 1], line_currency, line_minor)) AS e (account, currency, amount);
      ELSE
        INSERT INTO ledger_entries (booking_id, ledger_account, currency, amount_minor, booked_on,
                                    transaction_date, debtor_name, creditor_name, remittance)
        SELECT booking, e.account, e.currency, e.amount, p_booking_date, transaction_on, debtor.owner_name,
               creditor_names[i + 1], item ->> 'remittance'
          FROM (VALUES (debtor.account_id, debtor.currency, -debit),
                       ('fx:' || debtor.currency, debtor.currency, debit),
                       ('fx:' || line_currency, line_currency, -line_minor),
                       (credited[i + 1], line_currency, line_minor)) AS e (account, currency, amount);
      END IF;
    END LOOP;
  END IF;
  INSERT INTO ledger_orders (order_key, booked, reason_code, reason, created_at)
  VALUES (p_key, (outcome ->> 'booked')::boolean, outcome ->> 'reasonCode', outcome ->> 'reason', p_at)
  ON CONFLICT DO NOTHING;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'booking order % was answered twice', p_key;
  END IF;
  RETURN outcome;
END $$;
