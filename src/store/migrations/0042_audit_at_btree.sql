-- Issue 39: the audit trail's time index back to a b-tree. 0040 made it BRIN to save the b-tree insert of
-- each record; measured (pg_stat_statements, the five-step flow on PostgreSQL 15), each record's insert
-- took twice as long with it (16 µs against 8): records arrive in time order, so every insert extends
-- the maximum of the last, summarized block range and rewrites its summary, where a b-tree appends to
-- its rightmost page. docs/decisions.md "the audit trail's time index".
DROP INDEX audit_events_at;
CREATE INDEX audit_events_at ON audit_events (at);
