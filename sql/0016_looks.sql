-- Looks: the same runway look published by two sources as different bytes (issue 20).
--
-- photo_hashes: each stored photo's perceptual hashes (domain/perceptual_hash.py), computed
-- once from its stored bytes (catalog/photo_hashes.py: by the promotion job, or the review
-- page) and kept by its object key; media cleanup drops the row with the object.
CREATE TABLE photo_hashes (
    photo_key TEXT PRIMARY KEY,
    phash TEXT NOT NULL,
    dhash TEXT NOT NULL,
    created_at TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- A catalog entry's alternates: the photos promotion found to show a look the entry keeps
-- (domain/looks.py: merge_looks), with their provenance and their distance to the kept one.
-- An alternate's object stays referenced (catalog/media.py) while its row is here.
CREATE TABLE brand_runway_image_alternates (
    runway_id INTEGER NOT NULL REFERENCES brand_runways (id) ON DELETE CASCADE,
    object_key TEXT NOT NULL,
    kept_key TEXT NOT NULL,
    content_type TEXT NOT NULL,
    width INTEGER,
    height INTEGER,
    byte_size INTEGER NOT NULL,
    source TEXT NOT NULL DEFAULT '',
    source_image_url TEXT NOT NULL DEFAULT '',
    distance INTEGER,  -- NULL: an editor's "same" on a photo never hashed
    PRIMARY KEY (runway_id, object_key)
);
CREATE INDEX ix_brand_runway_image_alternates_object
    ON brand_runway_image_alternates (object_key);

CREATE TABLE street_snap_image_alternates (
    snap_id INTEGER NOT NULL REFERENCES street_snaps (id) ON DELETE CASCADE,
    object_key TEXT NOT NULL,
    kept_key TEXT NOT NULL,
    content_type TEXT NOT NULL,
    width INTEGER,
    height INTEGER,
    byte_size INTEGER NOT NULL,
    source TEXT NOT NULL DEFAULT '',
    source_image_url TEXT NOT NULL DEFAULT '',
    distance INTEGER,  -- NULL: an editor's "same" on a photo never hashed
    PRIMARY KEY (snap_id, object_key)
);
CREATE INDEX ix_street_snap_image_alternates_object ON street_snap_image_alternates (object_key);

-- An editor's word on a pair of photos: the same look, or different looks. Promotion follows
-- it before any threshold, so a split pair stays split. The pair is ordered (first < second).
CREATE TABLE look_decisions (
    first_key TEXT NOT NULL,
    second_key TEXT NOT NULL,
    decision TEXT NOT NULL CHECK (decision IN ('same', 'different')),
    editor TEXT NOT NULL DEFAULT '',
    decided_at TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP,
    PRIMARY KEY (first_key, second_key),
    CHECK (first_key < second_key)
);
