-- fashion-assets catalog, version 5: coverage (photos stored against photos expected) and
-- the coverage sensor's re-fetch attempts.

-- Photos stored per draft and per catalog entry, kept by triggers (the dialect files of
-- this version) so the coverage sensor reads two numbers per show instead of counting
-- millions of photo rows on every tick.
ALTER TABLE brand_runway_drafts ADD COLUMN stored_images INTEGER NOT NULL DEFAULT 0;
ALTER TABLE brand_runways ADD COLUMN stored_images INTEGER NOT NULL DEFAULT 0;
UPDATE brand_runway_drafts SET stored_images = (
    SELECT count(*) FROM brand_runway_draft_images i WHERE i.draft_id = brand_runway_drafts.id);
UPDATE brand_runways SET stored_images = (
    SELECT count(*) FROM brand_runway_images i WHERE i.runway_id = brand_runways.id);

-- The coverage sensor's attempts to repair an incomplete show: when it may try again
-- (backing off), and when and why it gave up. A show without a row was never re-fetched by
-- the sensor; a full crawl re-fetches incomplete shows whatever this table says.
CREATE TABLE coverage_repairs (
    show_id INTEGER PRIMARY KEY REFERENCES runway_shows (id) ON DELETE CASCADE,
    attempts INTEGER NOT NULL DEFAULT 0,
    last_attempt_at TIMESTAMP,
    next_attempt_at TIMESTAMP,
    gave_up_at TIMESTAMP,
    reason TEXT NOT NULL DEFAULT ''
);
