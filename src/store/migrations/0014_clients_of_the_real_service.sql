-- Clients of the real service (issue 13).
-- Luxembourg's accounts API has consents of its own, as GB's.
ALTER TABLE consents DROP CONSTRAINT consents_kind_check;
ALTER TABLE consents ADD CONSTRAINT consents_kind_check
  CHECK (kind IN ('short-term', 'accounts', 'accounts-gb', 'accounts-lu'));

-- Refresh tokens are no longer rotated: one stays valid while its consent does, bound to its app and,
-- issued over mutual TLS, to the TPP's certificate (RFC 9700 2.2.2). Tokens used under the old
-- rotation stay dead (used_at set).
ALTER TABLE refresh_tokens ADD COLUMN cert_thumbprint text;
