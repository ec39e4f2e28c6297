-- Puts one status notification in the outbox (issue 41, migration 0037), in the statement that makes
-- the change: called by the payments' transition rule and by consent_status_notified.
CREATE OR REPLACE FUNCTION notify_tpp(app text, resource_type text, resource_id text, uri text, status text,
                                      previous text, reason_code text, content text, href text)
  RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  id text := gen_random_uuid()::text;
BEGIN
  INSERT INTO notifications (notification_id, app_id, resource_type, resource_id, uri, body)
  VALUES (id, app, resource_type, resource_id, uri,
          notification_body(id, resource_type, resource_id, status, previous, reason_code, content, href));
END $$;
