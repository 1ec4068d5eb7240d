-- fashion-assets catalog, version 2: name resolution, waiting articles, street style.

-- Canonical cities (seeded at start from fashion_assets/domain/cities.py).
CREATE TABLE cities (
    id AUTO_ID,
    slug TEXT NOT NULL UNIQUE,
    display_name TEXT NOT NULL,
    created_at TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- Other spellings of a brand or city. `normalized` is normalize_name(alias), for lookups
-- and so that one spelling is recorded once. `origin`: seed, normalization, source, editor.
CREATE TABLE name_aliases (
    kind TEXT NOT NULL CHECK (kind IN ('brand', 'city')),
    alias TEXT NOT NULL,
    normalized TEXT NOT NULL,
    entity_slug TEXT NOT NULL,
    origin TEXT NOT NULL,
    created_at TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP,
    PRIMARY KEY (kind, alias)
);
CREATE INDEX ix_name_aliases_entity ON name_aliases (kind, entity_slug);

-- Names no entity matched: they wait for an editor (approve as new, merge, dismiss).
-- One row per normalized form, so `Lagos` and `LAGOS` wait as one name.
CREATE TABLE pending_names (
    id AUTO_ID,
    kind TEXT NOT NULL CHECK (kind IN ('brand', 'city')),
    name TEXT NOT NULL,
    normalized TEXT NOT NULL,
    source TEXT NOT NULL,
    example_url TEXT NOT NULL DEFAULT '',
    -- JSON array of the entities the name matched when it matched more than one.
    candidates TEXT NOT NULL DEFAULT '[]',
    status TEXT NOT NULL DEFAULT 'pending'
        CHECK (status IN ('pending', 'approved', 'merged', 'dismissed')),
    entity_slug TEXT,
    resolved_by TEXT NOT NULL DEFAULT '',
    resolved_at TIMESTAMP,
    first_seen_at TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP,
    UNIQUE (kind, normalized)
);

-- Source articles held until the name they need (a brand or a city) is resolved. Nothing
-- is downloaded for them; releasing a name moves them into runway_shows or
-- street_style_articles, and the next crawl of their partition drafts them.
CREATE TABLE waiting_articles (
    id AUTO_ID,
    pending_name_id INTEGER NOT NULL REFERENCES pending_names (id),
    kind TEXT NOT NULL CHECK (kind IN ('runway', 'street')),
    source TEXT NOT NULL,
    source_url TEXT NOT NULL,
    source_path TEXT NOT NULL,
    -- The listing the article came from: a season code (runway) or a fashion week (street).
    partition_key TEXT NOT NULL,
    title TEXT NOT NULL DEFAULT '',
    season_code TEXT NOT NULL DEFAULT '',
    -- Street albums: the crawl clock when the article was first seen (its entity key).
    year INTEGER NOT NULL DEFAULT 0,
    month INTEGER NOT NULL DEFAULT 0,
    listing_position INTEGER NOT NULL DEFAULT 0,
    first_seen_at TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP,
    UNIQUE (source, source_url)
);
CREATE INDEX ix_waiting_articles_name ON waiting_articles (pending_name_id);

-- The JSON alias list of version 1 is replaced by name_aliases.
ALTER TABLE brands DROP COLUMN aliases;

-- Runway shows: `city` is now the canonical city slug; the title's spelling is `city_name`,
-- and `city_pending_id` names the pending city while the spelling is unknown.
ALTER TABLE runway_shows ADD COLUMN city_name TEXT;
ALTER TABLE runway_shows ADD COLUMN city_pending_id INTEGER REFERENCES pending_names (id);
UPDATE runway_shows SET city_name = city, city = NULL WHERE city IS NOT NULL;
ALTER TABLE brand_runway_drafts ADD COLUMN city_name TEXT;
UPDATE brand_runway_drafts SET city_name = city, city = NULL WHERE city IS NOT NULL;
CREATE INDEX ix_runway_shows_season ON runway_shows (source, season_code);

-- Log entries of street-style and theImpression runway crawls name their partition.
ALTER TABLE ingest_log ADD COLUMN partition_key TEXT NOT NULL DEFAULT '';
UPDATE ingest_log SET partition_key = brand_slug;

-- Street style: the articles of a fashion week's listing, as first seen.
CREATE TABLE street_style_articles (
    id AUTO_ID,
    week_slug TEXT NOT NULL,
    source TEXT NOT NULL,
    source_url TEXT NOT NULL,
    source_path TEXT NOT NULL,
    title TEXT NOT NULL DEFAULT '',
    city TEXT NOT NULL REFERENCES cities (slug),
    -- The entity key's year and month: one reading of the crawl clock, never the title's.
    year INTEGER NOT NULL CHECK (year > 0),
    month INTEGER NOT NULL CHECK (month BETWEEN 1 AND 12),
    listing_position INTEGER NOT NULL DEFAULT 0,
    first_seen_at TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP,
    UNIQUE (source, source_url)
);
CREATE INDEX ix_street_style_articles_week ON street_style_articles (week_slug);

CREATE TABLE street_missing_images (
    article_id INTEGER NOT NULL REFERENCES street_style_articles (id) ON DELETE CASCADE,
    position INTEGER NOT NULL,
    url TEXT NOT NULL,
    reason TEXT NOT NULL,
    detail TEXT NOT NULL DEFAULT '',
    recorded_at TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP,
    PRIMARY KEY (article_id, position)
);

-- Street-snap drafts: one per source article; entity key (city, year, month).
CREATE TABLE street_snap_drafts (
    id AUTO_ID,
    source TEXT NOT NULL DEFAULT '',
    source_url TEXT NOT NULL DEFAULT '',
    city TEXT NOT NULL REFERENCES cities (slug),
    year INTEGER NOT NULL CHECK (year > 0),
    month INTEGER NOT NULL CHECK (month BETWEEN 1 AND 12),
    title TEXT NOT NULL DEFAULT '',
    expected_images INTEGER NOT NULL DEFAULT 0,
    status TEXT NOT NULL DEFAULT 'pending'
        CHECK (status IN ('pending', 'approved', 'rejected', 'promoted')),
    is_deleted BOOLEAN NOT NULL DEFAULT FALSE,
    created_at TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP,
    updated_at TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP
);
CREATE UNIQUE INDEX uq_street_snap_drafts_source
    ON street_snap_drafts (source, source_url) WHERE source_url <> '';
CREATE INDEX ix_street_snap_drafts_entity ON street_snap_drafts (city, year, month);

CREATE TABLE street_snap_draft_images (
    draft_id INTEGER NOT NULL REFERENCES street_snap_drafts (id) ON DELETE CASCADE,
    position INTEGER NOT NULL,
    object_key TEXT NOT NULL,
    source_image_url TEXT NOT NULL,
    content_type TEXT NOT NULL,
    width INTEGER,
    height INTEGER,
    byte_size INTEGER NOT NULL,
    PRIMARY KEY (draft_id, position)
);
CREATE INDEX ix_street_snap_draft_images_object ON street_snap_draft_images (object_key);

-- The street-style catalog: one entry per (city, year, month).
CREATE TABLE street_snaps (
    id AUTO_ID,
    city TEXT NOT NULL REFERENCES cities (slug),
    year INTEGER NOT NULL CHECK (year > 0),
    month INTEGER NOT NULL CHECK (month BETWEEN 1 AND 12),
    title TEXT NOT NULL DEFAULT '',
    created_at TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP,
    updated_at TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP,
    UNIQUE (city, year, month)
);

CREATE TABLE street_snap_images (
    snap_id INTEGER NOT NULL REFERENCES street_snaps (id) ON DELETE CASCADE,
    position INTEGER NOT NULL,
    object_key TEXT NOT NULL,
    content_type TEXT NOT NULL,
    width INTEGER,
    height INTEGER,
    byte_size INTEGER NOT NULL,
    source TEXT NOT NULL DEFAULT '',
    source_image_url TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (snap_id, position),
    UNIQUE (snap_id, object_key)
);
