-- fashion-assets catalog, version 8: a crawl's progress names the step it is in.
--
-- Portable between SQLite and PostgreSQL (no auto-numbered key, no dialect part).
--
-- Every step of a crawl run (listing, manifests, drafts; discovery) now writes the run's
-- progress row, so the status page sees the run from its first request to its last write.
-- `kind` is the asset the run is materializing now; `step` is that step's name and `unit`
-- what its counters count (brands, listing pages, shows, articles): the row reads
-- "manifests 12/30 shows". Rows written before this version were drafts steps, of shows.
ALTER TABLE crawl_progress ADD COLUMN step TEXT NOT NULL DEFAULT 'drafts';
ALTER TABLE crawl_progress ADD COLUMN unit TEXT NOT NULL DEFAULT 'shows';
