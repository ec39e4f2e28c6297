-- Issue 39: a seal keeps its records' first time beside their last, and the records lose their time
-- index. Export (store/audit/trail.ts) finds a period's records by the seals' times and reads them by
-- seq: a record's insert no longer pays a second b-tree (1.4 µs and 67 bytes of WAL of its 7 µs,
-- measured on PostgreSQL 15; docs/decisions.md "the audit trail's time index dropped"). Seals made
-- before have no first time: export reads their records whatever the period's end.
ALTER TABLE audit_seals ADD COLUMN first_at timestamptz;
DROP INDEX audit_events_at;
