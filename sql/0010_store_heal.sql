-- fashion-assets catalog, version 10: the store heal (issue 16), which fetches again the
-- objects that drafts and catalog photos reference and the store lost.
--
-- Portable between SQLite and PostgreSQL (no auto-numbered key, no dialect part). Times are
-- written by the heal in UTC, never by the database.

-- Lost objects that could not be fetched again: one row per source URL tried (url '' when
-- no photo row records one), with what the try said (the fetch's or the image check's
-- reason code, `changed_at_source`, `no_source_url`). The heal replaces the rows of every
-- key it checks, so a key fetched again, found stored again or no longer referenced leaves
-- the table when it is next checked.
CREATE TABLE lost_objects (
    object_key TEXT NOT NULL,
    url TEXT NOT NULL,
    reason TEXT NOT NULL,
    detail TEXT NOT NULL DEFAULT '',
    recorded_at TIMESTAMP NOT NULL,
    PRIMARY KEY (object_key, url)
);

-- Where the scheduled heal stands in its walk of every referenced key, in key order: the
-- next tick checks the keys after `after_key` ('': a new pass from the first key). One row
-- per walk ('archive'); `passes` counts the passes completed, `pass_started_at` is when
-- the current one began.
CREATE TABLE store_heal_cursor (
    walk TEXT PRIMARY KEY,
    after_key TEXT NOT NULL DEFAULT '',
    passes INTEGER NOT NULL DEFAULT 0,
    pass_started_at TIMESTAMP,
    updated_at TIMESTAMP
);
