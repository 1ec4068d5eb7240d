-- The photos of a show's manifest fetched as soon as its page was read: the manifests step
-- fetches the photos of every show the ingest decision will draft while it waits for its
-- next page turn, so that the drafts step writes the draft without a download
-- (crawl/runway.py). One row per manifest photo tried by run `run_id`: stored (object_key
-- and what the image check read) or not (`reason`, `detail`). Only the drafts step of the
-- same run takes them (catalog/photos.py: photos_fetched_already); a later run fetches
-- again. Replaced by the next run that fetches them, and with the manifest's photos.
CREATE TABLE runway_manifest_photos (
    show_id INTEGER NOT NULL,
    position INTEGER NOT NULL,
    url TEXT NOT NULL,
    run_id TEXT NOT NULL,
    object_key TEXT,
    content_type TEXT,
    width INTEGER,
    height INTEGER,
    byte_size INTEGER,
    reason TEXT,
    detail TEXT,
    PRIMARY KEY (show_id, position),
    FOREIGN KEY (show_id, position) REFERENCES runway_manifest_images (show_id, position)
        ON DELETE CASCADE
);
