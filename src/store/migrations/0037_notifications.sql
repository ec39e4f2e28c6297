-- Issue 41: status notifications to the TPP. A subscription (TPP-Notification-URI and the content it
-- prefers: SCA, PROCESS, LAST, stored comma-separated) is written with the resource it is for, by the
-- statement that stores it. Each change asked for puts a row in the outbox `notifications`, written by
-- the statement that makes the change (payments: the transition rule, store/transition-rule.ts;
-- consents: consent_status_notified; both call notify_tpp, all in src/store/definitions), and every
-- process's delivery loop sends it (services/notifications).
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
