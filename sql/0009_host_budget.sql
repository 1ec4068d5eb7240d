-- fashion-assets catalog, version 9: the per-host politeness budget shared by every client of
-- every worker, run and machine (crawl/budget.py, catalog/host_budget.py,
-- domain/host_budget.py).
--
-- Portable between SQLite and PostgreSQL (no auto-numbered key, no dialect part). Times are
-- Unix seconds from the clients' clocks (the machines of one deployment keep time by NTP).

-- One row per host (host[:port], as in the URL). `next_page_at`: when the next page request
-- to the host may be sent; taking a turn moves it on by the page delay in one statement.
-- `image_limit`, `changed_at`, `successes`, `cut_at`: the photo cap in force and its
-- history, halved by a 429 or 503 and restored step by step (domain/politeness.py).
CREATE TABLE host_budget (
    host TEXT PRIMARY KEY,
    next_page_at DOUBLE PRECISION NOT NULL DEFAULT 0,
    image_limit INTEGER NOT NULL,
    changed_at DOUBLE PRECISION NOT NULL,
    successes INTEGER NOT NULL DEFAULT 0,
    cut_at DOUBLE PRECISION
);

-- One row per client holding part of a host's photo cap: what it wants, what it holds, and
-- until when the lease lasts unless renewed (a client that died frees its slots then).
CREATE TABLE host_leases (
    host TEXT NOT NULL,
    holder TEXT NOT NULL,
    wanted INTEGER NOT NULL,
    granted INTEGER NOT NULL,
    expires_at DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (host, holder)
);

-- Each origin's robots.txt as a client last read it (`body` NULL: no rules, the answer to a
-- 4xx or a redirect), so the other clients take it from here for an hour instead of asking
-- the host again (crawl/robots.py: ROBOTS_MAX_AGE_S). An unreadable robots.txt is never kept.
CREATE TABLE robots_files (
    origin TEXT PRIMARY KEY,
    body TEXT,
    read_at DOUBLE PRECISION NOT NULL
);
