-- A consent's status changes, notified when it has a subscription (issue 41): the WHEN keeps every
-- other update of a consent free of the function. Final: every status but received and valid. The
-- trigger is created here with its function (dropped and created again, as the transition rule's).
CREATE OR REPLACE FUNCTION consent_status_notified() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  content text := notification_content_of(NEW.notification_content, NEW.status NOT IN ('received', 'valid'));
BEGIN
  IF content IS NOT NULL THEN
    PERFORM notify_tpp(NEW.client_id, 'consent', NEW.consent_id, NEW.notification_uri, NEW.status, OLD.status,
      NULL, content,
      CASE NEW.kind WHEN 'accounts-gb' THEN '/psd2/gb/v1' WHEN 'accounts-lu' THEN '/psd2/lu/v1' ELSE '/psd2/v1' END
        || '/consents/' || NEW.consent_id || '/status');
  END IF;
  RETURN NULL;
END $$;
DROP TRIGGER IF EXISTS consents_status_notified ON consents;
CREATE TRIGGER consents_status_notified AFTER UPDATE OF status ON consents
  FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM NEW.status AND NEW.notification_uri IS NOT NULL)
  EXECUTE FUNCTION consent_status_notified();
