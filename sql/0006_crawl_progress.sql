-- fashion-assets catalog, version 6: the progress of crawls as they run.
--
-- Portable between SQLite and PostgreSQL (no auto-numbered key here, so no AUTO_ID token:
-- a row is keyed by its Dagster run id). One row per crawl run, written by the run's drafts
-- step: once at the start, one cheap UPDATE per finished show, a heartbeat every few
-- seconds, and once at the end. `fashion-assets status`, the review app's /crawler page and
-- the stuck-run rule read it. Times are written by the crawl in UTC, never by the database,
-- so a heartbeat's age is measured against one clock.

CREATE TABLE crawl_progress (
    run_id TEXT PRIMARY KEY,
    -- What runs: the drafts asset (runway_drafts, impression_runway_drafts, street_snap_drafts).
    kind TEXT NOT NULL,
    -- The run's partition: a brand, a season code, a fashion week (or a batch of them).
    partition_key TEXT NOT NULL DEFAULT '',
    shows_total INTEGER NOT NULL DEFAULT 0,
    shows_done INTEGER NOT NULL DEFAULT 0,
    -- The show finished last (shows run several at once, so "current" is the latest one).
    current_show TEXT NOT NULL DEFAULT '',
    photos_total INTEGER NOT NULL DEFAULT 0,
    photos_done INTEGER NOT NULL DEFAULT 0,
    started_at TIMESTAMP NOT NULL,
    heartbeat_at TIMESTAMP NOT NULL,
    finished_at TIMESTAMP,
    status TEXT NOT NULL DEFAULT 'running'
        CHECK (status IN ('running', 'finished', 'failed', 'terminated')),
    note TEXT NOT NULL DEFAULT '',
    -- Where the run's process is: the stuck-run sensor ends a frozen process on its own
    -- machine when the run launcher cannot reach it (a run launched by the CLI).
    host TEXT NOT NULL DEFAULT '',
    pid INTEGER NOT NULL DEFAULT 0
);
-- The running crawls (status page) and those whose heartbeat is older than a bound (stuck
-- runs): both are a range of this index, however many finished rows pile up.
CREATE INDEX ix_crawl_progress_status_heartbeat ON crawl_progress (status, heartbeat_at);
