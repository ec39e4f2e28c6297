-- The PSU's login at the bank's OpenID Connect provider (PSU_OIDC_*), when it replaces our login page:
-- one row per authorization request in its login step. The PSU's browser goes from the authorization
-- request to us (start_hash, single-use), to the provider (state_hash, single-use) and back.

CREATE TABLE provider_logins (
  start_hash     text PRIMARY KEY CHECK (start_hash ~ '^[0-9a-f]{64}$'),
  -- The request's hash changes when the consent page is shown (a new request id for its form).
  request_hash   text NOT NULL UNIQUE REFERENCES auth_requests (request_hash) ON UPDATE CASCADE ON DELETE CASCADE,
  status         text NOT NULL CHECK (status IN ('created', 'sent', 'returned')),
  -- Set when the browser is sent to the provider: what its return must match.
  state_hash     text UNIQUE CHECK (state_hash ~ '^[0-9a-f]{64}$'),
  -- The browser that left: the hash of its cookie.
  browser_hash   text CHECK (browser_hash ~ '^[0-9a-f]{64}$'),
  -- Our callback URL as the provider was given it (the code exchange repeats it).
  return_url     text,
  -- The adapter's checks (OpenID Connect: nonce and PKCE verifier), cleared when the browser returns.
  checks         text,
  created_at     timestamptz NOT NULL,
  CHECK ((status = 'created') = (state_hash IS NULL)),
  CHECK ((status = 'created') = (browser_hash IS NULL)),
  CHECK ((status = 'created') = (return_url IS NULL)),
  CHECK ((status = 'sent') = (checks IS NOT NULL))
);
