-- An execution of one payment booked by the built-in ledger in one call and one transaction (issue 18:
-- "one statement or a function per execution"). The core banking port books in three steps that each
-- survive a crash (services/payments/booking.ts: mark, book, record), because a bank's own system does
-- not share the gateway's transaction; the built-in ledger does, so for it the three are one: the
-- payment is locked, booked through ledger_book, moved and, when booked, the answer to the request is
-- recorded, all committed together or not at all.
--
-- p_payment: {paymentId, from, to, mover, answer?: {claimClient, operation, key, claim, statusCode,
-- body}}: the payment as the gateway read it (in `from`, not marked), its status once booked (`to`,
-- computed by the domain's nextStatus), who moves it (for its audit record: migration 0035), and, when
-- the request came with an Idempotency-Key (migration 0030), the answer to record under the request's
-- claim of the key when booked. The move is ruled by the transition trigger on payments
-- (payment_status_moves, generated from domain/payment.ts TRANSITIONS) as any other, which records it.
-- The answer is:
-- - {"moved": false} when the payment is not in `from` or is marked for a booking asked before (the
--   gateway then takes the three steps, which continue that booking): nothing is done;
-- - ledger_book's {"accountCurrencies": ...} when a debit must be converted first: nothing is done;
-- - else ledger_book's outcome with "moved": true and "answered": whether the answer was recorded
--   (false when rejected, the payment then moved to RJCT with the reason, or when the claim was lost
--   meanwhile; true when booked without a key, as there is nothing to record).
CREATE OR REPLACE FUNCTION ledger_execute(p_key text, p_booking_date date, p_lines jsonb, p_rules jsonb,
                                          p_at timestamptz, p_payment jsonb)
RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
  waiting_in text;
  marked_for text;
  outcome jsonb;
  booked boolean;
BEGIN
  SELECT status, booking_key INTO waiting_in, marked_for
    FROM payments WHERE payment_id = p_payment ->> 'paymentId' FOR NO KEY UPDATE;
  IF NOT FOUND OR waiting_in <> p_payment ->> 'from' OR marked_for IS NOT NULL THEN
    RETURN '{"moved": false}';
  END IF;
  outcome := ledger_book(p_key, p_booking_date, p_lines, p_rules, p_at);
  IF outcome ? 'accountCurrencies' THEN
    RETURN outcome;
  END IF;
  booked := (outcome ->> 'booked')::boolean;
  UPDATE payments
     SET status = CASE WHEN booked THEN p_payment ->> 'to' ELSE 'RJCT' END, executed_at = p_at,
         reason_code = outcome ->> 'reasonCode', reason = outcome ->> 'reason', audit_actor = p_payment -> 'mover'
   WHERE payment_id = p_payment ->> 'paymentId';
  IF booked AND p_payment ? 'answer' THEN
    UPDATE idempotency_claims
       SET status_code = (p_payment #>> '{answer,statusCode}')::integer, body = p_payment #> '{answer,body}',
           claim = NULL, lease_until = NULL
     WHERE client_id = p_payment #>> '{answer,claimClient}' AND operation = p_payment #>> '{answer,operation}'
       AND idempotency_key = p_payment #>> '{answer,key}' AND claim = p_payment #>> '{answer,claim}';
    RETURN outcome || jsonb_build_object('moved', true, 'answered', FOUND);
  END IF;
  IF booked THEN
    RETURN outcome || '{"moved": true, "answered": true}';
  END IF;
  RETURN outcome || '{"moved": true, "answered": false}';
END $$;
