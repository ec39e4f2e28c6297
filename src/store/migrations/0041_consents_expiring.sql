-- Issue 41: the scheduler writes consents whose validity passed `expired` (so that a subscribed TPP is
-- told) on every turn; this finds them without reading every consent.
CREATE INDEX consents_expiring ON consents (valid_until) WHERE status = 'valid';
