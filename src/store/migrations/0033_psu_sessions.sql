-- The PSU's permission dashboard (issue 39): a session after the PSU's login, kept only as the hash of
-- its cookie's secret. It ends after PSU_SESSION_IDLE of inactivity (the service decides) or at logout.
CREATE TABLE psu_sessions (
  session_hash   text PRIMARY KEY CHECK (session_hash ~ '^[0-9a-f]{64}$'),
  psu_id         text NOT NULL,
  created_at     timestamptz NOT NULL,
  last_activity  timestamptz NOT NULL
);
-- Ended sessions are purged by their last activity.
CREATE INDEX psu_sessions_last_activity ON psu_sessions (last_activity);
-- The dashboard lists a PSU's consents by the PSU.
CREATE INDEX consents_psu ON consents (psu_id) WHERE psu_id IS NOT NULL;
-- ... and the PSU's future-dated payments waiting for their date.
CREATE INDEX payments_psu_scheduled ON payments (psu_id, requested_execution_date) WHERE status = 'ACCP';

-- The dashboard's login at the bank's OpenID Connect provider (PSU_OIDC_*), while the browser is there:
-- found by the state once (deleted as it is taken), from the browser that left (the hash of its cookie).
CREATE TABLE psu_dashboard_logins (
  state_hash     text PRIMARY KEY CHECK (state_hash ~ '^[0-9a-f]{64}$'),
  browser_hash   text NOT NULL CHECK (browser_hash ~ '^[0-9a-f]{64}$'),
  -- Our callback URL as the provider was given it (the code exchange repeats it).
  return_url     text NOT NULL,
  -- The adapter's checks (OpenID Connect: nonce and PKCE verifier).
  checks         text NOT NULL,
  created_at     timestamptz NOT NULL
);
CREATE INDEX psu_dashboard_logins_created ON psu_dashboard_logins (created_at);
