-- The SCA notifications (issue 41, TPP-Notification-Content-Preferred: status=SCA) of the steps that are
-- not a code's issue or exchange (those statements write theirs themselves, store/notifications/sca.ts):
-- `finalised` by the decoupled approval, `failed` when an authorization was denied, cancelled (expired,
-- polled too often) or refused. Called by the transaction that records the step (notifyScaStep), for the
-- resource its scope names when it subscribed (sca_targets). It was first a trigger on the audit
-- records; any AFTER trigger on audit_events doubled the insert of every record (8 µs to 16 µs, measured
-- on the five-step flow), so the trigger is dropped here and the few steps call this instead.
DROP TRIGGER IF EXISTS audit_events_authorization_notified ON audit_events;
DROP FUNCTION IF EXISTS authorization_notified();
CREATE OR REPLACE FUNCTION authorization_notified(scope text, status text) RETURNS integer
  LANGUAGE plpgsql AS $$
DECLARE
  notified integer;
BEGIN
  PERFORM notify_tpp(t.client_id, t.resource_type, t.resource_id, t.uri, status, NULL, NULL, 'SCA', t.href)
     FROM sca_targets(scope) t;
  GET DIAGNOSTICS notified = ROW_COUNT;
  RETURN notified;
END $$;
