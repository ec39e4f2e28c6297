-- Issue 39: the audit trail's records are analysed when they have doubled, not at every tenth more.
-- Every query of audit_events reads a range of seq (the primary key) or, for a consent's expiry, the
-- unique partial index: no plan depends on its statistics. At autovacuum's default (0.1) a trail growing
-- by thousands of records a second was analysed at every turn, 30,000 sampled rows each time (about
-- 200 ms on PGlite, where the gateway's own vacuum turn honours this parameter as autovacuum does).
-- Vacuums for its inserts keep their default: they are cheap on an insert-only table and set the
-- visibility map. docs/decisions.md "the audit trail analysed when it has doubled".
ALTER TABLE audit_events SET (autovacuum_analyze_scale_factor = 1.0);
