-- fashion-assets catalog, version 1: brands, the runway crawl state, drafts and the catalog.
--
-- Portable between SQLite and PostgreSQL. The one thing the two spell differently is an
-- auto-numbered key: the migration runner replaces the token AUTO_ID with
-- "INTEGER PRIMARY KEY AUTOINCREMENT" (SQLite) or "BIGSERIAL PRIMARY KEY" (PostgreSQL).
-- Timestamps default to the database clock (CURRENT_TIMESTAMP, UTC on both).

CREATE TABLE brands (
    id AUTO_ID,
    slug TEXT NOT NULL UNIQUE,
    display_name TEXT NOT NULL DEFAULT '',
    -- JSON array of other spellings; name resolution (a later migration) builds on it.
    aliases TEXT NOT NULL DEFAULT '[]',
    created_at TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- Shows seen in a brand's listing, one row per source article.
CREATE TABLE runway_shows (
    id AUTO_ID,
    brand_slug TEXT NOT NULL REFERENCES brands (slug),
    source TEXT NOT NULL,
    -- The article's canonical public address, whatever base URL the crawl went through.
    source_url TEXT NOT NULL,
    -- The path on the source site, joined to the configured base URL when fetching.
    source_path TEXT NOT NULL,
    title TEXT NOT NULL DEFAULT '',
    season_code TEXT NOT NULL,
    season TEXT NOT NULL DEFAULT '',
    year INTEGER NOT NULL DEFAULT 0,
    collection_type TEXT NOT NULL DEFAULT '',
    city TEXT,
    listing_position INTEGER NOT NULL DEFAULT 0,
    first_seen_at TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP,
    UNIQUE (source, source_url)
);
CREATE INDEX ix_runway_shows_brand ON runway_shows (brand_slug);

-- The image manifest of a show: what its page listed, in order.
CREATE TABLE runway_show_manifests (
    show_id INTEGER PRIMARY KEY REFERENCES runway_shows (id) ON DELETE CASCADE,
    expected_images INTEGER NOT NULL,
    page_title TEXT NOT NULL DEFAULT '',
    fetched_at TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP
);

CREATE TABLE runway_manifest_images (
    show_id INTEGER NOT NULL REFERENCES runway_show_manifests (show_id) ON DELETE CASCADE,
    position INTEGER NOT NULL,
    url TEXT NOT NULL,
    caption TEXT,
    PRIMARY KEY (show_id, position)
);

-- Drafts: one per source article, waiting for review.
CREATE TABLE brand_runway_drafts (
    id AUTO_ID,
    -- NOT NULL DEFAULT '': a NULL would make the unique source index useless.
    source TEXT NOT NULL DEFAULT '',
    source_url TEXT NOT NULL DEFAULT '',
    brand_slug TEXT NOT NULL REFERENCES brands (slug),
    season_code TEXT NOT NULL,
    title TEXT NOT NULL DEFAULT '',
    season TEXT NOT NULL DEFAULT '',
    year INTEGER NOT NULL DEFAULT 0,
    collection_type TEXT NOT NULL DEFAULT '',
    city TEXT,
    expected_images INTEGER NOT NULL DEFAULT 0,
    status TEXT NOT NULL DEFAULT 'pending'
        CHECK (status IN ('pending', 'approved', 'rejected', 'promoted')),
    is_deleted BOOLEAN NOT NULL DEFAULT FALSE,
    created_at TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP,
    updated_at TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP
);
-- The source key. Partial: rows without a source URL stay exempt (a full index would fail on them).
CREATE UNIQUE INDEX uq_brand_runway_drafts_source
    ON brand_runway_drafts (source, source_url) WHERE source_url <> '';
CREATE INDEX ix_brand_runway_drafts_entity ON brand_runway_drafts (brand_slug, season_code);

CREATE TABLE brand_runway_draft_images (
    draft_id INTEGER NOT NULL REFERENCES brand_runway_drafts (id) ON DELETE CASCADE,
    position INTEGER NOT NULL,
    object_key TEXT NOT NULL,
    source_image_url TEXT NOT NULL,
    content_type TEXT NOT NULL,
    width INTEGER,
    height INTEGER,
    byte_size INTEGER NOT NULL,
    PRIMARY KEY (draft_id, position)
);
CREATE INDEX ix_brand_runway_draft_images_object ON brand_runway_draft_images (object_key);

-- Photos of a show that failed for good, with the reason; the draft holds the rest.
CREATE TABLE runway_missing_images (
    show_id INTEGER NOT NULL REFERENCES runway_shows (id) ON DELETE CASCADE,
    position INTEGER NOT NULL,
    url TEXT NOT NULL,
    reason TEXT NOT NULL,
    detail TEXT NOT NULL DEFAULT '',
    recorded_at TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP,
    PRIMARY KEY (show_id, position)
);

-- The catalog: one entry per runway entity key (brand, season code).
CREATE TABLE brand_runways (
    id AUTO_ID,
    brand_slug TEXT NOT NULL REFERENCES brands (slug),
    season_code TEXT NOT NULL,
    title TEXT NOT NULL DEFAULT '',
    season TEXT NOT NULL DEFAULT '',
    year INTEGER NOT NULL DEFAULT 0,
    collection_type TEXT NOT NULL DEFAULT '',
    city TEXT,
    expected_images INTEGER NOT NULL DEFAULT 0,
    created_at TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP,
    updated_at TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP,
    UNIQUE (brand_slug, season_code)
);

CREATE TABLE brand_runway_images (
    runway_id INTEGER NOT NULL REFERENCES brand_runways (id) ON DELETE CASCADE,
    position INTEGER NOT NULL,
    object_key TEXT NOT NULL,
    content_type TEXT NOT NULL,
    width INTEGER,
    height INTEGER,
    byte_size INTEGER NOT NULL,
    source TEXT NOT NULL DEFAULT '',
    source_image_url TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (runway_id, position),
    UNIQUE (runway_id, object_key)
);

-- Per-show outcomes of every crawl step, newest last.
CREATE TABLE ingest_log (
    id AUTO_ID,
    run_id TEXT NOT NULL DEFAULT '',
    brand_slug TEXT NOT NULL,
    source TEXT NOT NULL,
    source_url TEXT NOT NULL DEFAULT '',
    stage TEXT NOT NULL,
    outcome TEXT NOT NULL,
    draft_id INTEGER,
    images_stored INTEGER NOT NULL DEFAULT 0,
    images_missing INTEGER NOT NULL DEFAULT 0,
    reason TEXT NOT NULL DEFAULT '',
    recorded_at TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP
);
CREATE INDEX ix_ingest_log_brand ON ingest_log (brand_slug, id);
