-- Future-dated payments wait in ACCP until the scheduler books them on their date.
CREATE INDEX payments_due ON payments (requested_execution_date) WHERE status = 'ACCP';
