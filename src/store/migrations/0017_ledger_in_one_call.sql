-- The built-in ledger books an order in one call (issue 18): a round trip per statement cost more than
-- the work itself. An account's booked balance is kept in booked_minor (its opening balance plus its
-- entries) instead of summing every entry at each check; triggers keep it so whoever writes the
-- ledger or the opening balance (bookings, the sandbox's history and reset, the seed).

ALTER TABLE accounts ADD COLUMN booked_minor bigint NOT NULL DEFAULT 0;
ALTER TABLE card_accounts ADD COLUMN booked_minor bigint NOT NULL DEFAULT 0;
UPDATE accounts a SET booked_minor = a.balance_minor
  + coalesce((SELECT sum(e.amount_minor) FROM ledger_entries e WHERE e.ledger_account = a.account_id), 0);
UPDATE card_accounts c SET booked_minor = c.balance_minor
  + coalesce((SELECT sum(e.amount_minor) FROM ledger_entries e WHERE e.ledger_account = c.card_account_id), 0);

-- A creditor within the bank is found by BBAN too; (country, bban) cannot serve a search by bban alone.
CREATE INDEX accounts_bban ON accounts (bban);

-- A new row starts from its opening balance and whatever entries its id already has; a new opening
-- balance moves the booked one by as much. TG_ARGV[0] names the table's id column.
CREATE FUNCTION booked_from_opening() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    NEW.booked_minor := NEW.balance_minor + coalesce(
      (SELECT sum(e.amount_minor) FROM ledger_entries e WHERE e.ledger_account = to_jsonb(NEW) ->> TG_ARGV[0]), 0);
  ELSE
    NEW.booked_minor := OLD.booked_minor + NEW.balance_minor - OLD.balance_minor;
  END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER accounts_booked_on_insert BEFORE INSERT ON accounts
  FOR EACH ROW EXECUTE FUNCTION booked_from_opening('account_id');
CREATE TRIGGER accounts_booked_on_opening BEFORE UPDATE OF balance_minor ON accounts
  FOR EACH ROW EXECUTE FUNCTION booked_from_opening('account_id');
CREATE TRIGGER card_accounts_booked_on_insert BEFORE INSERT ON card_accounts
  FOR EACH ROW EXECUTE FUNCTION booked_from_opening('card_account_id');
CREATE TRIGGER card_accounts_booked_on_opening BEFORE UPDATE OF balance_minor ON card_accounts
  FOR EACH ROW EXECUTE FUNCTION booked_from_opening('card_account_id');

-- Entries added or removed move the balances of the accounts they name, once per statement. Entries
-- are never changed: a correction is a booking of its own.
CREATE FUNCTION ledger_entries_added() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE accounts a SET booked_minor = a.booked_minor + m.delta
    FROM (SELECT ledger_account, sum(amount_minor) AS delta FROM added GROUP BY ledger_account) m
   WHERE a.account_id = m.ledger_account;
  UPDATE card_accounts c SET booked_minor = c.booked_minor + m.delta
    FROM (SELECT ledger_account, sum(amount_minor) AS delta FROM added GROUP BY ledger_account) m
   WHERE c.card_account_id = m.ledger_account;
  RETURN NULL;
END $$;
CREATE FUNCTION ledger_entries_removed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE accounts a SET booked_minor = a.booked_minor - m.delta
    FROM (SELECT ledger_account, sum(amount_minor) AS delta FROM removed GROUP BY ledger_account) m
   WHERE a.account_id = m.ledger_account;
  UPDATE card_accounts c SET booked_minor = c.booked_minor - m.delta
    FROM (SELECT ledger_account, sum(amount_minor) AS delta FROM removed GROUP BY ledger_account) m
   WHERE c.card_account_id = m.ledger_account;
  RETURN NULL;
END $$;
CREATE FUNCTION ledger_entries_unchangeable() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'ledger entries are never changed: book a correction';
END $$;
CREATE TRIGGER ledger_entries_added AFTER INSERT ON ledger_entries
  REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION ledger_entries_added();
CREATE TRIGGER ledger_entries_removed AFTER DELETE ON ledger_entries
  REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION ledger_entries_removed();
CREATE TRIGGER ledger_entries_unchangeable BEFORE UPDATE OR TRUNCATE ON ledger_entries
  FOR EACH STATEMENT EXECUTE FUNCTION ledger_entries_unchangeable();

-- An order booked in one call (src/adapters/ledger-core-banking.ts says what it decides and why):
-- the accounts it debits and credits locked in id order (orders never deadlock), an order answered
-- before answers the same, then the refusals (p_rules), the bookings and the outcome under the key.
-- A line whose debtor account is in another currency needs its debit converted by the caller: without
-- it the call books nothing and answers {"accountCurrencies": {account id: currency}}.
-- p_lines: [{paymentId, debtorAccountId, currency, minor, debitMinor?, creditorAccount, creditorName,
-- withinBank, toOtherBank, remittance, initiatedOn, enforce}]; p_rules: {notForOtherBanks,
-- notForPayments: [...], refusals: {blocked, otherBanks, accountType, funds, dailyLimit}: outcomes}.
CREATE FUNCTION ledger_book(p_key text, p_booking_date date, p_lines jsonb, p_rules jsonb, p_at timestamptz)
RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
  item jsonb;
  i integer;
  n integer := jsonb_array_length(p_lines);
  debtor accounts%ROWTYPE;
  earlier ledger_orders%ROWTYPE;
  credited text[] := '{}';
  creditor_names text[] := '{}';
  c_id text;
  c_currency text;
  c_owner text;
  debit bigint;
  debit_currency text;
  taken jsonb := '{}';
  already bigint;
  debited bigint;
  currencies jsonb := '{}';
  outcome jsonb := '{"booked": true}';
  booking text;
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

  FOR i IN 0 .. n - 1 LOOP
    item := p_lines -> i;
    SELECT * INTO debtor FROM accounts WHERE account_id = item ->> 'debtorAccountId';
    IF NOT FOUND THEN
      RAISE EXCEPTION 'booking order %: no account %', p_key, item ->> 'debtorAccountId';
    END IF;
    IF debtor.currency <> item ->> 'currency' AND item ->> 'debitMinor' IS NULL THEN
      currencies := currencies || jsonb_build_object(debtor.account_id, debtor.currency);
    END IF;
  END LOOP;
  IF currencies <> '{}' THEN
    RETURN jsonb_build_object('accountCurrencies', currencies);
  END IF;

  FOR i IN 0 .. n - 1 LOOP
    item := p_lines -> i;
    SELECT * INTO debtor FROM accounts WHERE account_id = item ->> 'debtorAccountId';
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
        FROM ledger_entries e JOIN bookings b ON b.booking_id = e.booking_id
       WHERE e.ledger_account = debtor.account_id AND e.amount_minor < 0 AND b.booked_on = p_booking_date;
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
      SELECT * INTO debtor FROM accounts WHERE account_id = item ->> 'debtorAccountId';
      debit_currency := debtor.currency;
      debit := coalesce((item ->> 'debitMinor')::bigint, (item ->> 'minor')::bigint);
      booking := gen_random_uuid()::text;
      INSERT INTO bookings (booking_id, payment_id, booked_on, transaction_date, debtor_name, creditor_name,
                            remittance, created_at)
      VALUES (booking, item ->> 'paymentId', p_booking_date, least((item ->> 'initiatedOn')::date, p_booking_date),
              debtor.owner_name, creditor_names[i + 1], item ->> 'remittance', p_at)
      ON CONFLICT DO NOTHING;
      IF NOT FOUND THEN
        RAISE EXCEPTION 'payment % is booked already', item ->> 'paymentId';
      END IF;
      -- Debtor, the fx pair when the currencies differ, then the creditor (or the clearing account).
      INSERT INTO ledger_entries (booking_id, ledger_account, currency, amount_minor)
      SELECT booking, e.account, e.currency, e.amount
        FROM (VALUES (1, debtor.account_id, debit_currency, -debit, true),
                     (2, 'fx:' || debit_currency, debit_currency, debit, debit_currency <> item ->> 'currency'),
                     (3, 'fx:' || (item ->> 'currency'), item ->> 'currency', -(item ->> 'minor')::bigint,
                      debit_currency <> item ->> 'currency'),
                     (4, credited[i + 1], item ->> 'currency', (item ->> 'minor')::bigint, true))
             AS e (position, account, currency, amount, wanted)
       WHERE e.wanted
       ORDER BY e.position;
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
