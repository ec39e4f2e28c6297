-- The SCA notifications (issue 41, TPP-Notification-Content-Preferred: status=SCA) of the steps that are
-- not a code's issue or exchange (those statements write theirs themselves, store/tokens-repository.ts):
-- `finalised` by the decoupled approval's token, `failed` when an authorization was denied, cancelled
-- (expired, polled too often) or refused. Written with the step's audit record, in its statement. The
-- trigger's WHEN keeps every other record, the hot path's above all, free of the function.
CREATE OR REPLACE FUNCTION authorization_notified() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM notify_tpp(t.client_id, t.resource_type, t.resource_id, t.uri,
                     CASE NEW.event WHEN 'token.issued' THEN 'finalised' ELSE 'failed' END,
                     NULL, NULL, 'SCA', t.href)
     FROM sca_targets(NEW.resource) t;
  RETURN NULL;
END $$;
DROP TRIGGER IF EXISTS audit_events_authorization_notified ON audit_events;
CREATE TRIGGER audit_events_authorization_notified AFTER INSERT ON audit_events
  FOR EACH ROW WHEN ((NEW.event IN ('authorization.denied', 'authorization.cancelled', 'authorization.refused')
                      OR (NEW.event = 'token.issued' AND NEW.detail ->> 'kind' = 'decoupled'))
                     AND (NEW.resource LIKE 'PIS:%' OR NEW.resource LIKE 'AIS:%'))
  EXECUTE FUNCTION authorization_notified();
