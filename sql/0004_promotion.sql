-- fashion-assets catalog, version 4: what promotion and its sensor look up.

-- The sensor's one query per tick counts approved drafts and their latest update.
CREATE INDEX ix_brand_runway_drafts_status ON brand_runway_drafts (status, updated_at);
CREATE INDEX ix_street_snap_drafts_status ON street_snap_drafts (status, updated_at);
-- Promotion joins drafts to their catalog entry by entity key and photos to their entry.
CREATE INDEX ix_brand_runway_images_object ON brand_runway_images (object_key);
CREATE INDEX ix_street_snap_images_object ON street_snap_images (object_key);
