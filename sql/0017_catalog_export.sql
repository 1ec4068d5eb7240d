-- The catalog export (fashion_assets/catalog/export.py): Parquet files in the object store.
--
-- catalog_revisions: one counter per kind of entry, raised by every promotion batch and every
-- merge of one entry, in their transaction; each entry they write carries the new value in
-- `revision`. An export takes the entries whose revision is above the one it exported last,
-- so it misses no change and repeats none, whatever the clocks say and however long a
-- promotion takes to commit.
CREATE TABLE catalog_revisions (
    kind TEXT PRIMARY KEY,
    revision INTEGER NOT NULL
);
INSERT INTO catalog_revisions (kind, revision) VALUES ('runway', 0);
INSERT INTO catalog_revisions (kind, revision) VALUES ('street', 0);
ALTER TABLE brand_runways ADD COLUMN revision INTEGER NOT NULL DEFAULT 0;
ALTER TABLE street_snaps ADD COLUMN revision INTEGER NOT NULL DEFAULT 0;
CREATE INDEX ix_brand_runways_revision ON brand_runways (revision);
CREATE INDEX ix_street_snaps_revision ON street_snaps (revision);

-- Each export, and its files: per kind, the entries and the photos (with alternates) of the
-- entries changed since the previous export, or of all of them for a full rebuild. The
-- current export is the last full one and every later one; a full rebuild forgets the
-- earlier ones, whose files media cleanup then removes (catalog/media.py counts the
-- current files as referenced).
CREATE TABLE catalog_exports (
    id AUTO_ID,
    full_rebuild BOOLEAN NOT NULL,
    created_at TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP
);
CREATE TABLE catalog_export_files (
    export_id INTEGER NOT NULL REFERENCES catalog_exports (id) ON DELETE CASCADE,
    kind TEXT NOT NULL,
    part TEXT NOT NULL CHECK (part IN ('entries', 'photos')),
    -- the kind's catalog revision the file holds every change up to
    revision INTEGER NOT NULL,
    object_key TEXT NOT NULL,
    row_count INTEGER NOT NULL,
    byte_size INTEGER NOT NULL,
    PRIMARY KEY (export_id, kind, part)
);
CREATE INDEX ix_catalog_export_files_object ON catalog_export_files (object_key);
