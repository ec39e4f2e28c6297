-- Issue 39: the audit trail's time index as a BRIN index. Records are appended in time order, so a
-- block range summary finds an export's or the retention's time range as well as a b-tree does, and
-- each record costs a summary update (rarely: only when a range fills) instead of a b-tree insert
-- with its WAL record on every row.
DROP INDEX audit_events_at;
CREATE INDEX audit_events_at ON audit_events USING brin (at);
