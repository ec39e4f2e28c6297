-- Who is told of an authorization's progress (issue 41, TPP-Notification-Content-Preferred: status=SCA):
-- the payment, signing basket or consent the scope names (PIS:<id>, AIS:<id>) when it subscribed to SCA,
-- with where its status resource is. A plain SQL function, so that the statements that issue and
-- exchange codes (store/tokens-repository.ts) have it inlined: a probe of each table by its key, and
-- nothing more for the resources nobody subscribed (every authorization of the hot path).
CREATE OR REPLACE FUNCTION sca_targets(scope text)
  RETURNS TABLE (client_id text, resource_type text, resource_id text, uri text, href text)
  LANGUAGE sql STABLE AS $$
  SELECT p.client_id, 'payment', p.payment_id, p.notification_uri,
         '/psd2/v1/payments/' || p.product || '/' || p.payment_id || '/status'
    FROM payments p
   WHERE scope LIKE 'PIS:%' AND p.payment_id = split_part(scope, ':', 2)
     AND 'SCA' = ANY (string_to_array(p.notification_content, ','))
  UNION ALL
  SELECT b.client_id, 'basket', b.basket_id, b.notification_uri,
         '/psd2/v1/payments/' || (SELECT min(m.product) FROM payments m WHERE m.basket_id = b.basket_id) || '/'
           || b.basket_id || '/status'
    FROM signing_baskets b
   WHERE scope LIKE 'PIS:%' AND b.basket_id = split_part(scope, ':', 2)
     AND 'SCA' = ANY (string_to_array(b.notification_content, ','))
  UNION ALL
  SELECT c.client_id, 'consent', c.consent_id, c.notification_uri,
         CASE c.kind WHEN 'accounts-gb' THEN '/psd2/gb/v1' WHEN 'accounts-lu' THEN '/psd2/lu/v1' ELSE '/psd2/v1' END
           || '/consents/' || c.consent_id || '/status'
    FROM consents c
   WHERE scope LIKE 'AIS:%' AND c.consent_id = split_part(scope, ':', 2)
     AND 'SCA' = ANY (string_to_array(c.notification_content, ','))
$$;
