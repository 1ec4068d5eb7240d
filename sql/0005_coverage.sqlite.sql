-- SQLite has row-level triggers only; a local catalog is small enough for them.
CREATE TRIGGER tr_draft_photos_inserted AFTER INSERT ON brand_runway_draft_images BEGIN
    UPDATE brand_runway_drafts SET stored_images = stored_images + 1 WHERE id = NEW.draft_id;
END;

CREATE TRIGGER tr_draft_photos_deleted AFTER DELETE ON brand_runway_draft_images BEGIN
    UPDATE brand_runway_drafts SET stored_images = stored_images - 1 WHERE id = OLD.draft_id;
END;

CREATE TRIGGER tr_draft_photos_moved AFTER UPDATE OF draft_id ON brand_runway_draft_images BEGIN
    UPDATE brand_runway_drafts SET stored_images = stored_images - 1 WHERE id = OLD.draft_id;
    UPDATE brand_runway_drafts SET stored_images = stored_images + 1 WHERE id = NEW.draft_id;
END;

CREATE TRIGGER tr_entry_photos_inserted AFTER INSERT ON brand_runway_images BEGIN
    UPDATE brand_runways SET stored_images = stored_images + 1 WHERE id = NEW.runway_id;
END;

CREATE TRIGGER tr_entry_photos_deleted AFTER DELETE ON brand_runway_images BEGIN
    UPDATE brand_runways SET stored_images = stored_images - 1 WHERE id = OLD.runway_id;
END;

CREATE TRIGGER tr_entry_photos_moved AFTER UPDATE OF runway_id ON brand_runway_images BEGIN
    UPDATE brand_runways SET stored_images = stored_images - 1 WHERE id = OLD.runway_id;
    UPDATE brand_runways SET stored_images = stored_images + 1 WHERE id = NEW.runway_id;
END;
