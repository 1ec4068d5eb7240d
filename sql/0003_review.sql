-- fashion-assets catalog, version 3: editors' review of drafts, with an audit trail.

-- One row per review action an editor took, refused actions excepted (they change nothing).
-- Runway and street drafts have separate id sequences, so a draft is (draft_kind, draft_id);
-- no foreign key for the same reason. `changes` is a JSON object of field: [old, new].
CREATE TABLE draft_reviews (
    id AUTO_ID,
    draft_kind TEXT NOT NULL CHECK (draft_kind IN ('runway', 'street')),
    draft_id INTEGER NOT NULL,
    action TEXT NOT NULL CHECK (action IN ('approve', 'reject', 'edit', 'delete', 'restore')),
    editor TEXT NOT NULL,
    reason TEXT NOT NULL DEFAULT '',
    changes TEXT NOT NULL DEFAULT '{}',
    created_at TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP
);
-- A draft's trail, in order.
CREATE INDEX ix_draft_reviews_draft ON draft_reviews (draft_kind, draft_id, id);

-- Why a draft is rejected, at hand without reading the trail; cleared when it is approved.
ALTER TABLE brand_runway_drafts ADD COLUMN reject_reason TEXT NOT NULL DEFAULT '';
ALTER TABLE street_snap_drafts ADD COLUMN reject_reason TEXT NOT NULL DEFAULT '';
