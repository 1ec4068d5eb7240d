-- fashion-assets catalog, version 7: backpressure, the gate that stops new crawls while the
-- review backlog or the failed-ingest backlog is too long (domain/backpressure.py).
--
-- Portable between SQLite and PostgreSQL (no auto-numbered key, no dialect part).

-- One row per gate ('crawl': the crawl schedule and the coverage sensor), so the hysteresis
-- (once paused, resume only below half the pause threshold) holds between sensor ticks and
-- across processes. No row is a gate that never paused. Written only when `paused` flips:
-- `reason` is the sentence of that decision, `changed_at` its time (UTC, from the caller).
CREATE TABLE backpressure_state (
    gate TEXT PRIMARY KEY,
    paused BOOLEAN NOT NULL,
    reason TEXT NOT NULL DEFAULT '',
    changed_at TIMESTAMP
);

-- The failed-ingest backlog (catalog/backpressure.py: read_backlog) starts from the failed
-- entries of stage 'ingest' or 'manifest' only: a range of this partial index, which stays
-- as small as the failures, however long the log of created and skipped shows grows.
CREATE INDEX ix_ingest_log_failed ON ingest_log (source, source_url, id)
    WHERE outcome = 'failed' AND stage IN ('ingest', 'manifest');
-- A failure counts only if it is its article's latest entry: one probe of this index per
-- failure (is there an entry of the same article with a higher id?). Any lookup of one
-- article's log by its source key, e.g. the coverage sensor's give-up reasons, uses it too.
CREATE INDEX ix_ingest_log_article ON ingest_log (source, source_url, id);
