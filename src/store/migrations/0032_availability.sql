-- Issue 39: the RTS Art. 32(4) statistics. Each gateway process adds its answers of a minute, per
-- interface, into one row (an upsert that adds counts, so processes and instances on one database share
-- the rows), and the answers' times into a log-scale histogram (bucket k holds times up to 2^(k/8) ms).
-- The probe (`psd2-gateway probe`) writes one row per request it sent; downtime is computed from those.
CREATE TABLE availability_minutes (
  interface   text NOT NULL,
  minute      timestamptz NOT NULL,
  requests    bigint NOT NULL,
  errors_5xx  bigint NOT NULL,
  errors_503  bigint NOT NULL,
  total_ms    double precision NOT NULL,
  PRIMARY KEY (interface, minute),
  CHECK (requests >= errors_5xx AND errors_5xx >= errors_503 AND errors_503 >= 0 AND total_ms >= 0)
);

CREATE TABLE availability_latency (
  interface  text NOT NULL,
  minute     timestamptz NOT NULL,
  bucket     smallint NOT NULL CHECK (bucket BETWEEN 0 AND 160),
  answers    bigint NOT NULL CHECK (answers > 0),
  PRIMARY KEY (interface, minute, bucket)
);

CREATE TABLE probe_outcomes (
  probe_id     text NOT NULL,
  interface    text NOT NULL,
  sent_at      timestamptz NOT NULL,
  answered     boolean NOT NULL,
  status_code  integer,
  latency_ms   double precision NOT NULL,
  interval_ms  integer NOT NULL CHECK (interval_ms > 0),
  PRIMARY KEY (probe_id, interface, sent_at)
);

-- The report reads an interface's outcomes in time order over a period.
CREATE INDEX probe_outcomes_interface_sent_at ON probe_outcomes (interface, sent_at);
