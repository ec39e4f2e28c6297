-- Issue 41: status notifications to the TPP. A subscription (TPP-Notification-URI and the content it
-- prefers: SCA, PROCESS, LAST, stored comma-separated) is written with the resource it is for, by the
-- statement that stores it. Each change asked for puts a row in the outbox `notifications`, written by
-- the statement that makes the change (payments: the transition rule, store/transition-rule.ts;
-- consents: the trigger below), and every process's delivery loop sends it (services/notifications).
ALTER TABLE payments ADD COLUMN notification_uri text, ADD COLUMN notification_content text;
ALTER TABLE signing_baskets ADD COLUMN notification_uri text, ADD COLUMN notification_content text;
ALTER TABLE consents ADD COLUMN notification_uri text, ADD COLUMN notification_content text;
-- The hosts an app may be notified at in live mode (onboarding: app.notificationHosts).
ALTER TABLE apps ADD COLUMN notification_hosts text[] NOT NULL DEFAULT '{}';

CREATE TABLE notifications (
  notification_id text PRIMARY KEY DEFAULT gen_random_uuid()::text,
  app_id text NOT NULL,
  resource_type text NOT NULL CHECK (resource_type IN ('payment', 'basket', 'consent')),
  resource_id text NOT NULL,
  uri text NOT NULL,
  body jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  state text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'delivered', 'abandoned')),
  attempts integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL DEFAULT now(),
  claimed_until timestamptz,
  delivered_at timestamptz
);
-- The delivery loop's claim: the pending rows that are due, oldest first.
CREATE INDEX notifications_due ON notifications (next_attempt_at) WHERE state = 'pending';
-- The listing: an app's newest first.
CREATE INDEX notifications_of_app ON notifications (app_id, created_at DESC);

CREATE TABLE notification_attempts (
  notification_id text NOT NULL REFERENCES notifications ON DELETE CASCADE,
  attempt integer NOT NULL,
  at timestamptz NOT NULL,
  status_code integer,
  error text,
  duration_ms integer NOT NULL,
  PRIMARY KEY (notification_id, attempt)
);

-- A notification's body (docs/notifications.md "What is delivered"): its id is the row's.
CREATE FUNCTION notification_body(id text, resource_type text, resource_id text, status text,
                                  previous text, reason_code text, content text, href text)
  RETURNS jsonb LANGUAGE sql IMMUTABLE AS $$
  SELECT jsonb_strip_nulls(jsonb_build_object('notificationId', id, 'resourceType', resource_type,
    'resourceId', resource_id, 'status', status, 'previousStatus', previous, 'reasonCode', reason_code,
    'createdAt', to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), 'content', content,
    '_links', jsonb_build_object('status', jsonb_build_object('href', href))))
$$;

-- Puts one notification in the outbox; answers nothing.
CREATE FUNCTION notify_tpp(app text, resource_type text, resource_id text, uri text, status text,
                           previous text, reason_code text, content text, href text)
  RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  id text := gen_random_uuid()::text;
BEGIN
  INSERT INTO notifications (notification_id, app_id, resource_type, resource_id, uri, body)
  VALUES (id, app, resource_type, resource_id, uri,
          notification_body(id, resource_type, resource_id, status, previous, reason_code, content, href));
END $$;

-- Which content a status change of a subscription's resource is: PROCESS for every change, LAST for a
-- final status only (PROCESS wins when both are asked for); NULL when the subscription asks for neither.
CREATE FUNCTION notification_content_of(preferred text, final boolean) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN 'PROCESS' = ANY (string_to_array(preferred, ',')) THEN 'PROCESS'
              WHEN final AND 'LAST' = ANY (string_to_array(preferred, ',')) THEN 'LAST' END
$$;

-- A consent's status changes, notified when it has a subscription (the WHEN keeps every other update
-- free of the function). Final: every status but received and valid.
CREATE FUNCTION consent_status_notified() RETURNS trigger LANGUAGE plpgsql AS $$
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
CREATE TRIGGER consents_status_notified AFTER UPDATE OF status ON consents
  FOR EACH ROW WHEN (OLD.status IS DISTINCT FROM NEW.status AND NEW.notification_uri IS NOT NULL)
  EXECUTE FUNCTION consent_status_notified();
