-- Statement-level triggers with transition tables: a draft written with 40 photos in one
-- INSERT updates its count once, and promotion's rebuild of thousands of entries costs one
-- grouped UPDATE per statement.
CREATE FUNCTION coverage_count_draft_photos() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP IN ('DELETE', 'UPDATE') THEN
        UPDATE brand_runway_drafts d SET stored_images = d.stored_images - o.photos
        FROM (SELECT draft_id, count(*) AS photos FROM old_photos GROUP BY draft_id) o
        WHERE d.id = o.draft_id;
    END IF;
    IF TG_OP IN ('INSERT', 'UPDATE') THEN
        UPDATE brand_runway_drafts d SET stored_images = d.stored_images + n.photos
        FROM (SELECT draft_id, count(*) AS photos FROM new_photos GROUP BY draft_id) n
        WHERE d.id = n.draft_id;
    END IF;
    RETURN NULL;
END $$;

CREATE TRIGGER tr_draft_photos_inserted AFTER INSERT ON brand_runway_draft_images
    REFERENCING NEW TABLE AS new_photos
    FOR EACH STATEMENT EXECUTE FUNCTION coverage_count_draft_photos();

CREATE TRIGGER tr_draft_photos_deleted AFTER DELETE ON brand_runway_draft_images
    REFERENCING OLD TABLE AS old_photos
    FOR EACH STATEMENT EXECUTE FUNCTION coverage_count_draft_photos();

CREATE TRIGGER tr_draft_photos_updated AFTER UPDATE ON brand_runway_draft_images
    REFERENCING OLD TABLE AS old_photos NEW TABLE AS new_photos
    FOR EACH STATEMENT EXECUTE FUNCTION coverage_count_draft_photos();

CREATE FUNCTION coverage_count_entry_photos() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP IN ('DELETE', 'UPDATE') THEN
        UPDATE brand_runways e SET stored_images = e.stored_images - o.photos
        FROM (SELECT runway_id, count(*) AS photos FROM old_photos GROUP BY runway_id) o
        WHERE e.id = o.runway_id;
    END IF;
    IF TG_OP IN ('INSERT', 'UPDATE') THEN
        UPDATE brand_runways e SET stored_images = e.stored_images + n.photos
        FROM (SELECT runway_id, count(*) AS photos FROM new_photos GROUP BY runway_id) n
        WHERE e.id = n.runway_id;
    END IF;
    RETURN NULL;
END $$;

CREATE TRIGGER tr_entry_photos_inserted AFTER INSERT ON brand_runway_images
    REFERENCING NEW TABLE AS new_photos
    FOR EACH STATEMENT EXECUTE FUNCTION coverage_count_entry_photos();

CREATE TRIGGER tr_entry_photos_deleted AFTER DELETE ON brand_runway_images
    REFERENCING OLD TABLE AS old_photos
    FOR EACH STATEMENT EXECUTE FUNCTION coverage_count_entry_photos();

CREATE TRIGGER tr_entry_photos_updated AFTER UPDATE ON brand_runway_images
    REFERENCING OLD TABLE AS old_photos NEW TABLE AS new_photos
    FOR EACH STATEMENT EXECUTE FUNCTION coverage_count_entry_photos();
