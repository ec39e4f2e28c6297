-- The SCA notifications (issue 41, TPP-Notification-Content-Preferred: status=SCA), written with the
-- audit record of the authorization's step, in its statement: `started` when the PSU's approval gave a
-- code (redirect), `finalised` when a token was issued for the resource (the code exchanged, or the
-- decoupled approval), `failed` when it was denied, cancelled (expired, polled too often) or refused.
-- The decoupled approval's own authorization.granted is passed over: its token.issued follows in the
-- same transaction. The trigger's WHEN keeps every other record free of the function.
CREATE OR REPLACE FUNCTION authorization_notified() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  id text := split_part(NEW.resource, ':', 2);
  sca text := CASE NEW.event
    WHEN 'authorization.granted' THEN 'started'
    WHEN 'token.issued' THEN CASE WHEN NEW.detail ->> 'kind' IN ('authorization_code', 'decoupled') THEN 'finalised' END
    ELSE 'failed' END;
  target record;
BEGIN
  IF sca IS NULL OR (NEW.event = 'authorization.granted' AND EXISTS (
       SELECT 1 FROM decoupled_sessions WHERE scope = NEW.resource AND state = 'complete')) THEN
    RETURN NULL;
  END IF;
  IF NEW.resource LIKE 'AIS:%' THEN
    FOR target IN SELECT client_id, notification_uri, kind FROM consents
                   WHERE consent_id = id AND 'SCA' = ANY (string_to_array(notification_content, ',')) LOOP
      PERFORM notify_tpp(target.client_id, 'consent', id, target.notification_uri, sca, NULL, NULL, 'SCA',
        CASE target.kind WHEN 'accounts-gb' THEN '/psd2/gb/v1' WHEN 'accounts-lu' THEN '/psd2/lu/v1' ELSE '/psd2/v1' END
          || '/consents/' || id || '/status');
    END LOOP;
    RETURN NULL;
  END IF;
  FOR target IN SELECT client_id, notification_uri, product FROM payments
                 WHERE payment_id = id AND 'SCA' = ANY (string_to_array(notification_content, ',')) LOOP
    PERFORM notify_tpp(target.client_id, 'payment', id, target.notification_uri, sca, NULL, NULL, 'SCA',
      '/psd2/v1/payments/' || target.product || '/' || id || '/status');
  END LOOP;
  FOR target IN SELECT b.client_id, b.notification_uri,
                       (SELECT min(p.product) FROM payments p WHERE p.basket_id = b.basket_id) AS product
                  FROM signing_baskets b
                 WHERE b.basket_id = id AND 'SCA' = ANY (string_to_array(b.notification_content, ',')) LOOP
    PERFORM notify_tpp(target.client_id, 'basket', id, target.notification_uri, sca, NULL, NULL, 'SCA',
      '/psd2/v1/payments/' || target.product || '/' || id || '/status');
  END LOOP;
  RETURN NULL;
END $$;
DROP TRIGGER IF EXISTS audit_events_authorization_notified ON audit_events;
CREATE TRIGGER audit_events_authorization_notified AFTER INSERT ON audit_events
  FOR EACH ROW WHEN (NEW.event IN ('authorization.granted', 'token.issued', 'authorization.denied',
                                   'authorization.cancelled', 'authorization.refused')
                     AND (NEW.resource LIKE 'PIS:%' OR NEW.resource LIKE 'AIS:%'))
  EXECUTE FUNCTION authorization_notified();
